{{ config(
    materialized='incremental',
    unique_key=['database_name', 'table_name', 'primary_key', 'loaded_at'],
    pre_hook="{{ delete_replica_changes_to_rebuild() }}",
    meta={'keeps_loaded_through': true},
) }}

-- The net change each load made to each source row, as Delta's change data feed gives a table's
-- changes between versions: the row as the loads before left it, and as this load leaves it. A
-- load is the changes with one `loaded_at`. After a load, a row is what its latest change in
-- the source's order (`row_change_order`) among those loaded so far made it: a late change
-- older than that one changes nothing. TRUNCATE and DROP end every row of their table; a rename
-- ends them under the old name and begins, under the new one, those it carried there (as
-- dim_row_versions knows them now: a late change that ends a row before the rename takes it out
-- of every load under the new name). A DROP COLUMN takes the column from every row whose latest
-- change loaded so far comes before it; one a rename carried to the new name (placed before the
-- rename) from the rows the rename carried whose version names it dropped (dim_row_versions'
-- `dropped_columns`: after the change that set the image).
{%- set dropped = "filter(map_keys({0}.row_image), column_name -> exists(coalesce(table_drops.drops[column_name], "
    ~ "array()), dropped -> dropped.loaded_at {1} loads.loaded_at and (dropped.latest_change > loads.{2} or "
    ~ "(array_contains(dropped.carried_by, loads.{2}.change_id) and array_contains({0}.dropped_columns, column_name)))))" %}
-- An incremental run computes again the rows of the keys whose versions were rebuilt since
-- (`replica_change_keys_to_rebuild`), which its pre-hook deletes; the others stay as they are.
{%- set of_keys_to_rebuild = "left semi join keys_to_rebuild on {0}.database_name <=> keys_to_rebuild.database_name "
    ~ "and {0}.table_name <=> keys_to_rebuild.table_name and {0}.primary_key = keys_to_rebuild.primary_key"
    if incremental_run() else "" %}
with
{%- if incremental_run() %}

keys_to_rebuild as (

    {{ replica_change_keys_to_rebuild() }}

),
{%- endif %}

versions as (

    select versions.*
    from {{ ref('dim_row_versions') }} as versions
    {{ of_keys_to_rebuild.format('versions') }}

),

table_renames as (

    {{ table_renames(ref('fct_schema_changes')) }}

),

row_events as (

    select *
    from ({{ row_events(ref('fct_row_changes')) }}) as events
    {{ of_keys_to_rebuild.format('events') }}

),

resets as (

    {{ table_resets(ref('fct_schema_changes')) }}

),

column_drops as (

    {{ computed_once(column_drops(ref('fct_schema_changes'), 'table_renames', ref('fct_row_changes'))) }}

),

-- Each table's column drops by column and load: the latest drop's place in the order of changes
-- (as a change that ends no row) and the renames that carried a drop of the column there. A
-- row's image looks up its own columns, not every drop of its table.
table_drops as (

    select
        database_name,
        table_name,
        map_from_entries(collect_list(struct(column_name, loads))) as drops
    from (
        select
            database_name,
            table_name,
            column_name,
            collect_list(struct(loaded_at, latest_change, carried_by)) as loads
        from (
            select
                database_name,
                table_name,
                column_name,
                loaded_at,
                max(change) filter (where carried_by is null) as latest_change,
                collect_set(carried_by) as carried_by
            from (
                select
                    database_name,
                    table_name,
                    previous_name as column_name,
                    loaded_at,
                    struct({{ row_change_order() }}, false as ends_row) as change,
                    if(is_carried, table_incarnation.change_id, null) as carried_by
                from column_drops
            ) as drops
            group by database_name, table_name, column_name, loaded_at
        ) as column_loads
        group by database_name, table_name, column_name
    ) as column_drop_loads
    group by database_name, table_name

),

-- A drop puts its table's rows in its load, and no more: one per table and load is enough.
drop_loads as (

    select
        database_name,
        table_name,
        loaded_at,
        min(struct({{ row_change_order() }})) as first_drop
    from column_drops
    group by database_name, table_name, loaded_at

),

-- The rows a rename carried to the table's new name (dim_row_versions), at the rename's place.
renamed_rows as (

    select
        versions.database_name,
        versions.table_name,
        versions.primary_key,
        renames.loaded_at,
        {{ row_change_order('renames') }}
    from versions
    inner join resets as renames
        on versions.opened_by_change_id = renames.change_id and renames.ddl_kind = 'RENAME'
    where versions.opened_by_operation = 'RENAME'

),

row_keys as (

    select
        changes.database_name,
        changes.table_name,
        changes.primary_key
    from {{ ref('fct_row_changes') }} as changes
    {{ of_keys_to_rebuild.format('changes') }}
    where changes.primary_key is not null

    union

    select
        database_name,
        table_name,
        primary_key
    from renamed_rows

),

-- Each row's events, and its table's resets, with the columns `row_change_order` sorts by; and
-- its table's column drops, which change the row in their load but are no change of its own.
events as (

    select
        database_name,
        table_name,
        primary_key,
        ends_row,
        false as is_drop,
        loaded_at,
        {{ row_change_order() }}
    from ({{ ordered_changes('row_events') }}) as ordered

    union all

    select
        database_name,
        table_name,
        primary_key,
        true as ends_row,
        false as is_drop,
        loaded_at,
        {{ row_change_order() }}
    from (
        select
            row_keys.primary_key,
            resets.*
        from row_keys
        inner join resets
            on row_keys.database_name = resets.database_name and row_keys.table_name = resets.table_name
    ) as row_resets

    union all

    select
        row_keys.database_name,
        row_keys.table_name,
        row_keys.primary_key,
        false as ends_row,
        true as is_drop,
        drop_loads.loaded_at,
        drop_loads.first_drop.*
    from row_keys
    inner join drop_loads
        on row_keys.database_name = drop_loads.database_name and row_keys.table_name = drop_loads.table_name

    union all

    select
        database_name,
        table_name,
        primary_key,
        false as ends_row,
        false as is_drop,
        loaded_at,
        {{ row_change_order() }}
    from renamed_rows

),

-- Each row's latest change in each load, in the source's order.
load_events as (

    select
        database_name,
        table_name,
        primary_key,
        loaded_at,
        max(struct({{ row_change_order() }}, ends_row)) filter (where not is_drop) as change
    from events
    group by database_name, table_name, primary_key, loaded_at

),

-- The latest change of all loaded before a load and of all loaded up to it.
loads as (

    select
        database_name,
        table_name,
        primary_key,
        loaded_at,
        max(change) over (
            partition by database_name, table_name, primary_key order by loaded_at
            rows between unbounded preceding and 1 preceding
        ) as state_before,
        max(change) over (
            partition by database_name, table_name, primary_key order by loaded_at
            rows between unbounded preceding and current row
        ) as state_after
    from load_events

),

-- Each row's versions before and after each load, with the columns drops loaded by then took
-- from them.
load_versions as (

    select /*+ broadcast(table_drops) */
        loads.*,
        before_version.row_image as before_version_image,
        after_version.row_image as after_version_image,
        {{ dropped.format('before_version', '<', 'state_before') }} as dropped_before,
        {{ dropped.format('after_version', '<=', 'state_after') }} as dropped_after
    from loads
    left join versions as before_version
        on
            loads.database_name = before_version.database_name
            and loads.table_name = before_version.table_name
            and loads.primary_key = before_version.primary_key
            and loads.state_before.change_id = before_version.opened_by_change_id
            and not loads.state_before.ends_row
    left join versions as after_version
        on
            loads.database_name = after_version.database_name
            and loads.table_name = after_version.table_name
            and loads.primary_key = after_version.primary_key
            and loads.state_after.change_id = after_version.opened_by_change_id
            and not loads.state_after.ends_row
    left join table_drops
        on loads.database_name = table_drops.database_name and loads.table_name = table_drops.table_name

)

select
    database_name,
    table_name,
    primary_key,
    loaded_at,
    case
        when before_version_image is null then 'INSERT'
        when after_version_image is null then 'DELETE'
        else 'UPDATE'
    end as change_type,
    map_filter(before_version_image, (column_name, value) -> not array_contains(dropped_before, column_name))
        as before_image,
    map_filter(after_version_image, (column_name, value) -> not array_contains(dropped_after, column_name))
        as after_image,
    state_before.change_id as before_change_id,
    state_after.change_id as after_change_id
from load_versions
where
    (not (state_after <=> state_before) or size(dropped_after) > size(dropped_before))
    and (before_version_image is not null or after_version_image is not null)
