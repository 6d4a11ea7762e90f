{{ config(
    materialized='incremental',
    partition_by=['database_name', 'table_name'],
    unique_key=['database_name', 'table_name', 'primary_key', 'opened_by_change_id'],
) }}

with

row_changes as (

    select
        *,
        {{ primary_key_json('primary_key_columns', 'before_image', 'cast(null as map<string, string>)') }}
            as before_primary_key
    from {{ ref('fct_row_changes') }}

),

-- A change ends its row's life when it deletes the row or moves it to another key (an UPDATE
-- of a key column ends the old key and opens the new one).
row_events as (

    select
        database_name,
        table_name,
        primary_key,
        change_id,
        operation,
        after_image,
        operation = 'DELETE' as ends_row,
        event_at,
        emitted_at,
        source_position,
        row_index,
        loaded_at
    from row_changes
    where primary_key is not null

    union all

    select
        database_name,
        table_name,
        before_primary_key as primary_key,
        change_id,
        operation,
        cast(null as map <string, string>) as after_image,
        true as ends_row,
        event_at,
        emitted_at,
        source_position,
        row_index,
        loaded_at
    from row_changes
    where operation = 'UPDATE' and before_primary_key != primary_key

),

-- TRUNCATE and DROP end every row of their table that was open at that time.
table_resets as (

    select
        database_name,
        table_name,
        change_id,
        ddl_kind,
        coalesce(event_at, emitted_at) as reset_at,
        loaded_at
    from {{ ref('fct_schema_changes') }}
    where ddl_kind in ('TRUNCATE', 'DROP') and table_name is not null

),

-- The rows whose versions this run builds: in an incremental run, the rows with changes loaded
-- since this model last ran and the rows a new TRUNCATE or DROP ends (open at its time), each
-- rebuilt from all its changes so that late and out-of-order changes give what a full refresh
-- gives; otherwise every row.
rebuilt_rows as (

    select
        database_name,
        table_name,
        primary_key,
        loaded_at
    from row_events
    where {{ loaded_after_this() }}
    {%- if incremental_run() %}

    union all

    select
        versions.database_name,
        versions.table_name,
        versions.primary_key,
        new_resets.loaded_at
    from {{ this }} as versions
    inner join (select * from table_resets where {{ loaded_after_this() }}) as new_resets
        on
            versions.database_name = new_resets.database_name
            and versions.table_name = new_resets.table_name
            and versions.valid_from <= new_resets.reset_at
            and (versions.valid_to is null or versions.valid_to >= new_resets.reset_at)
    {%- endif %}

),

rebuilt_tables as (

    select
        database_name,
        table_name,
        max(loaded_at) as loaded_at
    from rebuilt_rows
    group by database_name, table_name

),

rebuilt_row_events as (

    select *
    from row_events
    {%- if incremental_run() %}
    left semi join rebuilt_rows
        on
            row_events.database_name <=> rebuilt_rows.database_name
            and row_events.table_name <=> rebuilt_rows.table_name
            and row_events.primary_key = rebuilt_rows.primary_key
    {%- endif %}

),

sequenced as (

    select
        database_name,
        table_name,
        primary_key,
        change_id,
        operation,
        after_image,
        ends_row,
        coalesce(event_at, emitted_at) as changed_at,
        lag(ends_row) over row_history as follows_row_end,
        row_number() over row_history as change_number,
        lead(change_id) over row_history as next_change_id,
        lead(operation) over row_history as next_operation,
        lead(coalesce(event_at, emitted_at)) over row_history as next_changed_at
    from rebuilt_row_events
    window row_history as (
        partition by database_name, table_name, primary_key
        order by {{ row_change_order() }}
    )

),

-- A row lives from an INSERT (or its first change after it ended) to its end: images carry
-- over only within one life.
row_lives as (

    select
        *,
        sum(if(operation = 'INSERT' or coalesce(follows_row_end, true), 1, 0)) over (
            partition by database_name, table_name, primary_key order by change_number
        ) as life_number
    from sequenced

),

-- A TRUNCATE or DROP between a change and the next ends the version the change opened: the
-- first such reset, where the same TRUNCATE may come in several formats at one time (the
-- change_id settles ties, so every build picks the same one).
reset_candidates as (

    select
        row_lives.*,
        if(
            table_resets.change_id is null,
            null,
            struct(table_resets.change_id, table_resets.ddl_kind, table_resets.reset_at)
        ) as reset,
        row_number() over (
            partition by row_lives.database_name, row_lives.table_name, row_lives.primary_key, row_lives.change_number
            order by table_resets.reset_at, table_resets.change_id
        ) as reset_number
    from row_lives
    left join table_resets
        on
            row_lives.database_name = table_resets.database_name
            and row_lives.table_name = table_resets.table_name
            and row_lives.changed_at <= table_resets.reset_at
            and (row_lives.next_changed_at is null or row_lives.next_changed_at > table_resets.reset_at)

),

-- Every column an image of the life carried (a life's images have few distinct column sets).
row_life_columns as (

    select
        *,
        array_distinct(flatten(collect_set(map_keys(after_image)) over (
            partition by database_name, table_name, primary_key, life_number
        ))) as life_columns
    from reset_candidates
    where reset_number = 1

),

-- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
-- value of the row's life: one cell per version and column of the life, filled from the last
-- image that carried that column. Windows, not joins back: Spark recomputes a CTE wherever it
-- is read, and each join back read fct_row_changes again.
version_cells as (

    select
        database_name,
        table_name,
        primary_key,
        change_number,
        struct(change_id, operation, changed_at, next_change_id, next_operation, next_changed_at, reset) as version,
        column_name,
        last(
            if(map_contains_key(after_image, column_name), struct(after_image[column_name] as column_value), null),
            true
        ) over (
            partition by database_name, table_name, primary_key, life_number, column_name
            order by change_number
        ) as latest
    from row_life_columns
        lateral view explode(life_columns) as column_name
    where not ends_row

),

versions as (

    select
        database_name,
        table_name,
        primary_key,
        change_number,
        version.*,
        map_from_entries(collect_list(struct(column_name, latest.column_value))) as row_image
    from version_cells
    where latest is not null
    group by database_name, table_name, primary_key, change_number, version

)

select
    versions.database_name,
    versions.table_name,
    versions.primary_key,
    versions.row_image,
    versions.changed_at as valid_from,
    coalesce(versions.reset.reset_at, versions.next_changed_at) as valid_to,
    versions.next_change_id is null and versions.reset is null as is_current,
    versions.change_id as opened_by_change_id,
    versions.operation as opened_by_operation,
    coalesce(versions.reset.change_id, versions.next_change_id) as closed_by_change_id,
    coalesce(versions.reset.ddl_kind, versions.next_operation) as closed_by_operation,
    rebuilt_tables.loaded_at
from versions
inner join rebuilt_tables
    on versions.database_name <=> rebuilt_tables.database_name and versions.table_name <=> rebuilt_tables.table_name
{%- if incremental_run() and config.get('incremental_strategy') == 'insert_overwrite' %}

-- An overwritten partition is written whole: its other rows keep the versions they have.
union all

select
    kept.database_name,
    kept.table_name,
    kept.primary_key,
    kept.row_image,
    kept.valid_from,
    kept.valid_to,
    kept.is_current,
    kept.opened_by_change_id,
    kept.opened_by_operation,
    kept.closed_by_change_id,
    kept.closed_by_operation,
    kept.loaded_at
from {{ this }} as kept
left semi join rebuilt_tables
    on kept.database_name <=> rebuilt_tables.database_name and kept.table_name <=> rebuilt_tables.table_name
left anti join rebuilt_rows
    on
        kept.database_name <=> rebuilt_rows.database_name
        and kept.table_name <=> rebuilt_rows.table_name
        and kept.primary_key = rebuilt_rows.primary_key
{%- endif %}
