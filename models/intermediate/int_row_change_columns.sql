-- A table, unlike most intermediate models: dim_replica_columns reads the columns every row
-- change ever showed, which the row changes summed up here give at a fraction of their size. An
-- incremental run sums up the changes loaded since and merges each sum into the one it holds
-- for the same key, so its cost follows what is new. A rename (of a table or a column) loaded
-- since moves earlier changes of the tables it touches to other names or sums: the pre-hook
-- deletes those tables' sums, and the run sums up all their changes again.
{{ config(
    materialized='incremental',
    unique_key=['source_format', 'database_name', 'table_name', 'column_types', 'later_column_renames'],
    pre_hook="{{ delete_sums_of_renamed_tables() }}",
    meta={'keeps_loaded_through': true},
) }}
{%- set whole_schema_formats = formats_with('whole_schema') %}
{%- set renamed = tables_renamed_since_this(ref('fct_schema_changes')) %}
with

table_renames as (

    {{ table_renames(ref('fct_schema_changes')) }}

),

row_changes as (

    {{ through_renames(
        '(select * from ' ~ ref('fct_row_changes') ~ ' where ' ~ loaded_after_this() ~ ' or ' ~ renamed ~ ')',
        'table_renames',
        [
            'source_format', 'database_name', 'table_name', 'primary_key', 'column_types', 'after_image', 'event_at',
            'emitted_at', 'source_position', 'landed_at', 'file_path', 'line_number', 'message_index', 'row_index',
        ],
    ) }}

),

schema_changes as (

    {{ through_renames(ref('fct_schema_changes'), 'table_renames', [
        'source_format', 'database_name', 'table_name', 'ddl_kind', 'sql_text', 'event_at', 'emitted_at',
    ], '0') }}

),

-- The times of each table's column renames.
table_column_renames as (

    select
        database_name,
        table_name,
        collect_list(changed_at) as renamed_at
    from ({{ column_ddl('schema_changes') }}) as column_ddl
    where change = 'RENAME'
    group by database_name, table_name

),

-- The row changes of a table summed up by their types (in their order) and the number of the
-- table's column renames at or after them: changes alike in both name their columns alike, so
-- a few rows are exploded into columns, not one per change. With each, the column names in the
-- images of its changes of keyed rows (the rows dim_row_versions keeps).
summed_up as (

    select
        source_format,
        database_name,
        table_name,
        column_entries as column_types,
        later_column_renames,
        min(observed_at) as first_observed_at,
        max(observed_at) as last_observed_at,
        -- The change's place in its source (its position, then its time and arrival), where its
        -- types list every column the table then has.
        max(if({{ is_in('source_format', whole_schema_formats) }}, {{ source_order() }}, null)) as observed_place,
        array_sort(array_distinct(flatten(
            collect_set(map_keys(after_image)) filter (where primary_key is not null)
        ))) as image_columns
    from (
        select
            row_changes.*,
            coalesce(map_entries(row_changes.column_types), array()) as column_entries,
            size(filter(
                coalesce(table_column_renames.renamed_at, array()),
                renamed_at -> coalesce(row_changes.event_at, row_changes.emitted_at) is null
                or coalesce(row_changes.event_at, row_changes.emitted_at) <= renamed_at
            )) as later_column_renames,
            coalesce(row_changes.event_at, row_changes.emitted_at) as observed_at
        from row_changes
        left join table_column_renames
            on
                row_changes.database_name = table_column_renames.database_name
                and row_changes.table_name = table_column_renames.table_name
    ) as row_changes
    group by source_format, database_name, table_name, column_entries, later_column_renames

)

-- Each sum merged with the one this table holds for the same key, but for the renamed tables'.
select
    source_format,
    database_name,
    table_name,
    column_types,
    later_column_renames,
    min(first_observed_at) as first_observed_at,
    max(last_observed_at) as last_observed_at,
    max(observed_place) as observed_place,
    array_sort(array_distinct(flatten(collect_list(image_columns)))) as image_columns,
    {{ load_time() }} as loaded_at
from (
    select * from summed_up
    {%- if incremental_run() %}
    union all
    select
        held.source_format,
        held.database_name,
        held.table_name,
        held.column_types,
        held.later_column_renames,
        held.first_observed_at,
        held.last_observed_at,
        held.observed_place,
        held.image_columns
    from {{ this }} as held
    left semi join summed_up
        on
            held.source_format = summed_up.source_format
            and held.database_name = summed_up.database_name
            and held.table_name = summed_up.table_name
            and held.column_types = summed_up.column_types
            and held.later_column_renames = summed_up.later_column_renames
    where not ({{ renamed }})
    {%- endif %}
) as sums
group by source_format, database_name, table_name, column_types, later_column_renames
