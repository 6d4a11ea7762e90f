{{ config(
    materialized='incremental',
    partition_by=['database_name', 'table_name'],
    unique_key=['database_name', 'table_name', 'primary_key', 'opened_by_change_id'],
    post_hook="{{ delete_uncarried_versions() }}",
) }}

-- The history is built in steps, one CTE each, most of them a macro of macros/row_versions
-- named for what it gives. They stay CTEs of this one query, not models: the steps after
-- rebuilt_row_events work on the rows this run rebuilds, chosen from this model's own versions.
-- Spark inlines a CTE wherever it is read, so each step reads the one before by windows, not
-- joins back: every further reader of row_events would read fct_row_changes again. The few rows
-- of the tables' renames, resets and column drops, which several steps read, are computed once.

-- sqlfluff:indentation:template_blocks_indent:false
-- (the query below is the `else` of one `if`, not indented under it)
{%- set loaded_inputs = [ref('fct_row_changes'), ref('fct_schema_changes')] %}
{%- if nothing_loaded_since_this(loaded_inputs) %}

-- No change or DDL loaded since this model's newest version: no row to rebuild (every step
-- below starts from what was loaded since).
select * from {{ this }} where false

{%- else %}

with

-- Each table name's renames: a renamed table's rows go on under its new name.
table_renames as (

    {{ computed_once(table_renames(ref('fct_schema_changes'))) }}

),

row_events as (

    {{ row_events(ref('fct_row_changes'), 'table_renames') }}

),

table_resets as (

    {{ computed_once(table_resets(ref('fct_schema_changes'), 'table_renames')) }}

),

column_drops as (

    {{ computed_once(column_drops(ref('fct_schema_changes'), 'table_renames', ref('fct_row_changes'))) }}

),

-- The events of the rows this run rebuilds, earlier ones included: in an incremental run, the
-- rows with new events, or open at a new TRUNCATE, DROP or DROP COLUMN; otherwise every row.
rebuilt_row_events as (

    select *
    from row_events
    {%- if incremental_run() %}
    left semi join (
        {{ rows_to_rebuild(ref('fct_row_changes'), ref('fct_schema_changes'), 'table_renames', 'table_resets', 'column_drops') }}
    ) as rebuilt_rows
        on
            row_events.database_name <=> rebuilt_rows.database_name
            and row_events.table_name <=> rebuilt_rows.table_name
            and row_events.primary_key = rebuilt_rows.primary_key
    {%- endif %}

),

-- Each row's events in order, numbered into lives; a version ends at the row's next change
-- or at a TRUNCATE or DROP before it.
row_lives as (

    {{ row_lives('rebuilt_row_events') }}

),

row_lives_with_resets as (

    {{ version_resets('row_lives', 'table_resets') }}

),

-- Each version's image: every column's latest value in the row's life, so that a partial
-- image loses no column, unless the column was dropped since.
version_cells as (

    {{ version_cells('row_lives_with_resets', 'column_drops') }}

),

versions as (

    select
        *,
        lag(row_image) over (
            partition by {{ row_identity() }}, life_number order by change_number
        ) as previous_image
    from ({{ version_images('version_cells') }}) as versions

)

-- A version a rename carried to the table's new name is there from the rename, opened by it,
-- if the row was still there then: a later change of the row under the new name, or none,
-- closes it, not one the rename also carried.
select
    versions.database_name,
    versions.table_name,
    versions.primary_key,
    versions.row_image,
    if(versions.is_carried, versions.table_incarnation.renamed_at, versions.changed_at) as valid_from,
    coalesce(versions.reset.reset_at, versions.next_changed_at) as valid_to,
    versions.next_change_id is null and versions.reset is null as is_current,
    if(versions.is_carried, versions.table_incarnation.change_id, versions.change_id) as opened_by_change_id,
    if(versions.is_carried, 'RENAME', versions.operation) as opened_by_operation,
    coalesce(versions.reset.change_id, versions.next_change_id) as closed_by_change_id,
    coalesce(versions.reset.ddl_kind, versions.next_operation) as closed_by_operation,
    -- What the opening change's message says; where it holds no full old row, what differs from
    -- the row's previous version, if its life has one. A rename changes no column.
    case
        when versions.is_carried then cast(array() as array<string>)
        when versions.before_image_source = 'message' then versions.changed_columns
        when versions.previous_image is not null
            then {{ changed_columns('versions.previous_image', 'versions.row_image') }}
    end as changed_columns,
    case
        when versions.is_carried then 'previous_version'
        when versions.before_image_source = 'message' then 'message'
        when versions.previous_image is not null then 'previous_version'
        else 'unknown'
    end as before_image_source,
    array_intersect(versions.dropped_columns, map_keys(versions.row_image)) as dropped_columns,
    versions.change_number,
    -- The newest load of the inputs the `if` above compares this model with, so a next run with
    -- nothing newer is idle; read from them, as a second reader of the rows to rebuild would
    -- compute those again.
    (
        select max(loads.loaded_at)
        from (
            {%- for input in loaded_inputs %}
            select loaded_at from {{ input }}{{ ' union all' if not loop.last }}
            {%- endfor %}
        ) as loads
    ) as loaded_at
from versions
where
    not versions.is_carried
    or not (coalesce(versions.next_is_carried, false) or coalesce(versions.reset.is_carried, false))
{%- endif %}
