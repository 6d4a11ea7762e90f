{{ config(severity='warn') }}

-- Source values that do not fit their replica column's type, counted per replica: each is kept
-- as text in the row's `_overflow`, never lost.
select
    database_name,
    table_name,
    replica_name,
    overflowing_rows
from {{ ref('dim_replica_tables') }}
where overflowing_rows > 0
