{{ config(materialized='replicas') }}
-- depends_on: {{ ref('dim_row_versions') }}

-- The source tables replicated, each with its relation: `<database>__<table>`, lower-cased, other
-- characters `_`, in the schema `<this schema>_replica`. A name over 100 characters, or one that
-- more than one table would get, is cut to 91 and ends with `_` and 8 hex digits of its source
-- name's SHA-256. The `replicas` materialization keeps a Delta table for each row.
{%- set replicas = var('replicas') %}

with

table_renames as (

    {{ table_renames(ref('fct_schema_changes')) }}

),

-- Each table's earlier names whose rows renames carried to it: a to b, then b to c, gives c
-- both a and b.
earlier_names as (

    select
        database_name,
        hop.table_name,
        array_sort(collect_set(table_renames.table_name)) as renamed_from
    from table_renames
        lateral view explode(renamed_away) renamings as away
        lateral view explode(away.hops) carried as hop
    group by database_name, hop.table_name

),

tables as (

    select
        database_name,
        table_name,
        count(*) as column_count
    from {{ ref('dim_replica_columns') }}
    where
        {{ tables_matching(replicas.get('include', ['*'])) }}
        and not {{ tables_matching(replicas.get('exclude', [])) }}
    group by database_name, table_name

),

named as (

    select
        database_name,
        table_name,
        column_count,
        coalesce(
            {{ replica_name_override(replicas.get('names', {})) }},
            regexp_replace(lower(concat(database_name, '__', table_name)), '[^a-z0-9_]', '_')
        ) as base_name
    from tables

)

select
    named.database_name,
    named.table_name,
    '{{ this.schema }}_replica' as replica_schema,
    case
        when length(named.base_name) > 100 or count(*) over (partition by named.base_name) > 1
            then concat(
                left(named.base_name, 91), '_', left(sha2(concat(named.database_name, '.', named.table_name), 256), 8)
            )
        else named.base_name
    end as replica_name,
    named.column_count,
    coalesce(earlier_names.renamed_from, array()) as renamed_from
from named
left join earlier_names
    on named.database_name = earlier_names.database_name and named.table_name = earlier_names.table_name
