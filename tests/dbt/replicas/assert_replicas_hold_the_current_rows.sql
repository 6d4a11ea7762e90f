-- A replica whose rows now are not its table's current rows: its key null or repeated, or a
-- count that differs from dim_current_rows'.
with

current_rows as (

    select
        database_name,
        table_name,
        count(*) as current_rows
    from {{ ref('dim_current_rows') }}
    group by database_name, table_name

)

select
    replicas.database_name,
    replicas.table_name,
    replicas.replica_name,
    replicas.replica_rows,
    replicas.replica_keys,
    replicas.keyed_rows,
    coalesce(current_rows.current_rows, 0) as current_rows
from {{ ref('dim_replica_tables') }} as replicas
left join current_rows
    on
        replicas.database_name = current_rows.database_name
        and replicas.table_name = current_rows.table_name
where
    replicas.replica_rows != coalesce(current_rows.current_rows, 0)
    or replicas.replica_keys != replicas.replica_rows
    or replicas.keyed_rows != replicas.replica_rows
