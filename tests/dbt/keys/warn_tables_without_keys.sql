{{ config(severity='warn') }}

-- A table with no key anywhere gets no row versions: name it in var('cdc_primary_keys').
select
    database_name,
    table_name,
    row_changes
from {{ ref('dim_keyless_tables') }}
