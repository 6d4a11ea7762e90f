{{ config(severity='warn') }}

-- A key column with no value in the image (NULL, or left out): the change is kept in the fact
-- but has no key, so it gets no row version rather than merging with other keyless rows.
select
    database_name,
    table_name,
    count(*) as row_changes
from {{ ref('fct_row_changes') }}
where size(primary_key_columns) > 0 and primary_key is null and {{ loaded_since_data_tests_passed() }}
group by database_name, table_name
