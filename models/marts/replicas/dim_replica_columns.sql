-- Every column of every source table, as its replica types it. A column's observations are its
-- types in row changes (with its place in the message) and in DDL `tableChanges`, and its name
-- in the images of the changes of keyed rows (formats that carry no types), whether or not the
-- row is still there. An observation made before a RENAME COLUMN counts for the name the first
-- rename after it gave; one of a table before a RENAME TABLE counts for the table's new name too.
-- The row changes are read summed up (int_row_change_columns), not from dim_row_versions' images
-- (the same names), so that this model and dim_row_versions build side by side.
{%- set binary_formats = formats_with('binary') %}
with

table_renames as (

    {{ table_renames(ref('fct_schema_changes')) }}

),

schema_changes as (

    {{ through_renames(ref('fct_schema_changes'), 'table_renames', [
        'source_format', 'database_name', 'table_name', 'ddl_kind', 'sql_text', 'table_columns', 'event_at', 'emitted_at',
    ], '0') }}

),

column_ddl as (

    {{ column_ddl('schema_changes') }}

),

observations as (

    -- A summed-up change's types, each with its place in the message; then the names in its
    -- images, which tell neither type, place nor time.
    select
        if(observed.is_typed, source_format, null) as source_format,
        database_name,
        table_name,
        observed.column_name,
        observed.source_type,
        if(observed.is_typed, first_observed_at, null) as first_observed_at,
        if(observed.is_typed, last_observed_at, null) as last_observed_at,
        observed.ordinal_position,
        if(observed.is_typed, observed_place, null) as observed_place
    from {{ ref('int_row_change_columns') }}
        lateral view inline(concat(
            transform(column_types, (column_type, position) -> named_struct(
                'column_name', column_type.key, 'source_type', column_type.value, 'ordinal_position', position + 1,
                'is_typed', true
            )),
            transform(image_columns, column_name -> named_struct(
                'column_name', column_name, 'source_type', cast(null as string), 'ordinal_position', cast(null as int),
                'is_typed', false
            ))
        )) observed as column_name, source_type, ordinal_position, is_typed

    union all

    select
        source_format,
        database_name,
        table_name,
        table_column.column_name,
        table_column.column_type as source_type,
        coalesce(event_at, emitted_at) as first_observed_at,
        coalesce(event_at, emitted_at) as last_observed_at,
        table_column.ordinal_position,
        null as observed_place
    from schema_changes
        lateral view explode(table_columns) as table_column

),

-- Each column the DDL renames or drops: its renames in time order, and its last drop's time.
column_changes as (

    select
        database_name,
        table_name,
        previous_name as column_name,
        array_sort(collect_set(struct(changed_at, column_name)) filter (where change = 'RENAME')) as renames,
        max(changed_at) filter (where change = 'DROP') as dropped_at
    from column_ddl
    group by database_name, table_name, previous_name

),

-- The observations under the name the first rename at or after them gave (an observation with
-- no time: the first rename; one summed up from row changes: the rename after its last time, as
-- after any of its times), summed up by name, type and place.
renamed as (

    select
        source_format,
        database_name,
        table_name,
        observed_name,
        source_type,
        ordinal_position,
        column_name,
        min(first_observed_at) as first_observed_at,
        max(last_observed_at) as last_observed_at,
        max(observed_place) as last_observed_place
    from (
        select
            observations.source_format,
            observations.database_name,
            observations.table_name,
            observations.column_name as observed_name,
            lower(trim(observations.source_type)) as source_type,
            observations.ordinal_position,
            coalesce(
                try_element_at(
                    filter(
                        column_changes.renames,
                        rename -> observations.last_observed_at is null
                        or observations.last_observed_at <= rename.changed_at
                    ),
                    1
                ).column_name,
                observations.column_name
            ) as column_name,
            observations.first_observed_at,
            observations.last_observed_at,
            observations.observed_place
        from observations
        left join column_changes
            on
                observations.database_name = column_changes.database_name
                and observations.table_name = column_changes.table_name
                and observations.column_name = column_changes.column_name
        where observations.table_name is not null and observations.column_name is not null
    ) as named
    group by source_format, database_name, table_name, observed_name, source_type, ordinal_position, column_name

),

-- Each with the Spark type of its source type (the seed source_type_spark_types).
typed as (

    {{ with_spark_types('renamed', ref('source_type_spark_types')) }}

),

-- The observations with the newest place of their column and of their table in a format whose
-- types list every column (`whole_schema`: Debezium's schema of the row). A column the types of
-- its table's newest change leave out was dropped with no DDL to say so, as Postgres sends none;
-- the newest change's time is the drop's. Windows, not a grouping joined back: Spark would
-- compute the observations again for each reader.
placed as (

    select
        *,
        max(last_observed_place) over (partition by source_format, database_name, table_name, column_name)
            as column_place,
        max(last_observed_place) over (partition by source_format, database_name, table_name) as newest_place
    from typed

),

replica_columns as (

    select
        renamed.database_name,
        renamed.table_name,
        renamed.column_name,
        -- Bytes are binary where the format says which columns hold bytes and stages them
        -- as their ISO-8859-1 text (its `binary` flag in var('cdc_formats')).
        {{ common_spark_type(
            "if(renamed.spark_type = 'binary' and not "
            ~ is_in('renamed.source_format', binary_formats) ~ ", 'string', renamed.spark_type)"
        ) }} as spark_type,
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
        max(renamed.last_observed_at) as last_seen_at,
        max(renamed.newest_place.changed_at) filter (where renamed.column_place < renamed.newest_place) as unlisted_at
    from placed as renamed
    group by renamed.database_name, renamed.table_name, renamed.column_name

)

select
    replica_columns.database_name,
    replica_columns.table_name,
    replica_columns.column_name,
    replica_columns.spark_type,
    replica_columns.source_type,
    replica_columns.source_types,
    replica_columns.previous_names,
    replica_columns.ordinal_position,
    replica_columns.first_seen_at,
    replica_columns.last_seen_at,
    -- Dropped unless seen after: a DDL's drop then, an omission at the same time as well (the
    -- omitting change comes after the column's last change of that format by place).
    coalesce(
        column_changes.dropped_at > coalesce(replica_columns.last_seen_at, timestamp '0001-01-01')
        or replica_columns.unlisted_at >= coalesce(replica_columns.last_seen_at, timestamp '0001-01-01'),
        false
    ) as is_dropped,
    -- Spark's names ignore case: a name that, case aside, another column of the table has (Postgres
    -- allows "Case" beside case) or a replica's own column has, ends with `_` and 8 hex digits of
    -- its SHA-256, as a colliding replica name does.
    case
        when
            count(*) over (
                partition by
                    replica_columns.database_name, replica_columns.table_name, lower(replica_columns.column_name)
            ) > 1
            or {{ is_in('lower(replica_columns.column_name)', replica_reserved_column_names()) }}
            then concat(replica_columns.column_name, '_', left(sha2(replica_columns.column_name, 256), 8))
        else replica_columns.column_name
    end as replica_column_name
from replica_columns
left join column_changes
    on
        replica_columns.database_name = column_changes.database_name
        and replica_columns.table_name = column_changes.table_name
        and replica_columns.column_name = column_changes.column_name
