-- Every column of every source table, as its replica types it. A column's observations are its
-- types in row changes (with its place in the message) and in DDL `tableChanges`, and its name
-- in current row images (formats that carry no types). An observation made before a RENAME
-- COLUMN counts for the name the first rename after it gave.
with

observations as (

    select
        database_name,
        table_name,
        column_name,
        column_type as source_type,
        coalesce(event_at, emitted_at) as observed_at,
        position + 1 as ordinal_position
    from {{ ref('fct_row_changes') }}
        lateral view posexplode(column_types) as position, column_name, column_type

    union all

    select
        database_name,
        table_name,
        table_column.column_name,
        table_column.column_type as source_type,
        coalesce(event_at, emitted_at) as observed_at,
        table_column.ordinal_position
    from {{ ref('fct_schema_changes') }}
        lateral view explode(table_columns) as table_column

    union all

    select
        database_name,
        table_name,
        column_name,
        null as source_type,
        null as observed_at,
        null as ordinal_position
    from {{ ref('dim_current_rows') }}
        lateral view explode(map_keys(row_image)) as column_name

),

column_ddl as (

    {{ column_ddl(ref('fct_schema_changes')) }}

),

rename_times as (

    select
        database_name,
        table_name,
        previous_name,
        array_sort(collect_set(changed_at)) as changed_at
    from column_ddl
    where change = 'RENAME'
    group by database_name, table_name, previous_name

),

-- The observations summed up by column, type, place, and the first RENAME at or after them (a
-- rename's time splits them): every row change observes every column of its table, so grouping
-- here leaves the joins and groupings after it a few rows, not one per change and column.
observed as (

    select
        observations.database_name,
        observations.table_name,
        observations.column_name,
        lower(trim(observations.source_type)) as source_type,
        observations.ordinal_position,
        min(observations.observed_at) as first_observed_at,
        max(observations.observed_at) as last_observed_at
    from observations
    left join rename_times
        on
            observations.database_name = rename_times.database_name
            and observations.table_name = rename_times.table_name
            and observations.column_name = rename_times.previous_name
    where observations.table_name is not null and observations.column_name is not null
    group by
        observations.database_name,
        observations.table_name,
        observations.column_name,
        lower(trim(observations.source_type)),
        observations.ordinal_position,
        observations.observed_at is null,
        try_element_at(
            filter(rename_times.changed_at, changed_at -> observations.observed_at <= changed_at), 1
        )

),

renamed as (

    select
        observed.database_name,
        observed.table_name,
        observed.column_name as observed_name,
        observed.source_type,
        observed.first_observed_at,
        observed.last_observed_at,
        observed.ordinal_position,
        coalesce(min_by(renames.column_name, renames.changed_at), observed.column_name) as column_name
    from observed
    left join column_ddl as renames
        on
            renames.change = 'RENAME'
            and observed.database_name = renames.database_name
            and observed.table_name = renames.table_name
            and observed.column_name = renames.previous_name
            and (observed.first_observed_at is null or observed.first_observed_at <= renames.changed_at)
    group by
        observed.database_name,
        observed.table_name,
        observed.column_name,
        observed.source_type,
        observed.first_observed_at,
        observed.last_observed_at,
        observed.ordinal_position

),

spark_types as (

    {{ spark_types_of_source_types('renamed', ref('source_type_spark_types')) }}

),

drops as (

    select
        database_name,
        table_name,
        previous_name as column_name,
        max(changed_at) as dropped_at
    from column_ddl
    where change = 'DROP'
    group by database_name, table_name, previous_name

),

replica_columns as (

    select
        renamed.database_name,
        renamed.table_name,
        renamed.column_name,
        {{ common_spark_type('spark_types.spark_type') }} as spark_type,
        -- The latest; of observations at the same time (two formats of one change), the greatest.
        max_by(renamed.source_type, struct(renamed.last_observed_at, renamed.source_type)) filter (
            where renamed.last_observed_at is not null
        ) as source_type,
        array_sort(collect_set(renamed.source_type)) as source_types,
        array_sort(array_remove(collect_set(renamed.observed_name), renamed.column_name)) as previous_names,
        max_by(renamed.ordinal_position, struct(renamed.last_observed_at, renamed.ordinal_position)) filter (
            where renamed.last_observed_at is not null
        ) as ordinal_position,
        min(renamed.first_observed_at) as first_seen_at,
        max(renamed.last_observed_at) as last_seen_at
    from renamed
    left join spark_types on renamed.source_type = spark_types.source_type
    group by renamed.database_name, renamed.table_name, renamed.column_name

)

select
    replica_columns.*,
    coalesce(drops.dropped_at > coalesce(replica_columns.last_seen_at, timestamp '0001-01-01'), false) as is_dropped
from replica_columns
left join drops
    on
        replica_columns.database_name = drops.database_name
        and replica_columns.table_name = drops.table_name
        and replica_columns.column_name = drops.column_name
