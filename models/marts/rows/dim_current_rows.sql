-- A view: the current versions are already in dim_row_versions, which is kept incrementally.
{{ config(materialized='view') }}

select
    database_name,
    table_name,
    primary_key,
    {{ row_image_now() }} as row_image,
    opened_by_change_id as last_change_id,
    opened_by_operation as last_operation,
    valid_from as last_event_at
from {{ ref('dim_row_versions') }}
where is_current
