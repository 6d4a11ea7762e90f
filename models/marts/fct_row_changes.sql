{{ config(materialized='incremental', unique_key='change_id') }}

with

new_changes as (

    {{ new_first_landed_changes(ref('int_row_changes_labelled')) }}

)

select
    change_id,
    source_format,
    database_name,
    table_name,
    operation,
    source_operation,
    operation_code,
    primary_key_columns,
    primary_key,
    before_image,
    after_image,
    changed_columns,
    column_types,
    column_jdbc_types,
    column_jdbc_type_names,
    event_at,
    emitted_at,
    source_position,
    message_id,
    row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from new_changes
