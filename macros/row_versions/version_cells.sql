{#- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
    value of the row's life: one cell per version and column of the life (every column an image
    of the life carried; a life's images have few distinct column sets), filled from the last
    image that carried that column, unless the column was dropped since (`drops`,
    `column_drops`): the source row lost that value. A life whose every image carries all its
    columns is whole: each version is its image, one row and no cells (a wide table's versions
    would otherwise be as many rows as their columns). `cell_index` numbers a version's cells
    from 0. A window, not a join back: each join back would read the row changes again. Each
    version also names its image's columns dropped while it was open (`dropped_columns`):
    their values predate the drop. A table's drops join its cells after the windows, broadcast:
    carried through their sorts, every version would hold all its table's drops, and a table's
    versions would meet in one task. They come grouped by time (one DDL in several formats is
    one time), and only a group at the time a version opens or closes is compared copy by
    copy in the full order: a lambda per drop and version cost more than the windows. -#}
{% macro version_cells(lives, drops) -%}
    {#- A version is open from its change to its reset or next change, in time and in order. -#}
    {%- set opened_at = 'cells.changed_at' -%}
    {%- set closed_at = 'if(cells.version.reset is null, cells.version.next_changed_at, cells.version.reset.reset_at)' -%}
    {%- set closed_order = 'coalesce(cells.version.reset.reset_order, cells.version.next_change_order)' -%}
    select /*+ broadcast(drops) */
        {{ row_identity('cells') }},
        cells.life_number,
        cells.change_number,
        cells.changed_at,
        cells.version,
        if(cells.cell_index = 0, array_distinct(flatten(transform(
            filter(
                coalesce(drops.drop_times, array()),
                dropped -> coalesce(dropped.ordered_at >= {{ opened_at }}, true)
                    and coalesce(dropped.ordered_at <= {{ closed_at }}, true)
            ),
            dropped -> if(
                dropped.ordered_at > {{ opened_at }} and ({{ closed_order }} is null or dropped.ordered_at < {{ closed_at }}),
                dropped.column_names,
                transform(
                    filter(
                        dropped.drops,
                        copy -> copy.drop_order > cells.change_order and coalesce(copy.drop_order < {{ closed_order }}, true)
                    ),
                    copy -> copy.column_name
                )
            )
        ))), null) as dropped_columns,
        cells.whole_image,
        cells.column_name,
        cells.cell_index,
        if(
            cells.latest is not null and exists(
                drops.drop_times,
                dropped -> coalesce(dropped.ordered_at >= cells.latest.set_order.ordered_at, true)
                    and coalesce(dropped.ordered_at <= {{ opened_at }}, true)
                    and exists(
                        dropped.drops,
                        copy -> copy.column_name = cells.column_name
                            and copy.drop_order > cells.latest.set_order
                            and copy.drop_order < cells.change_order
                    )
            ),
            null,
            cells.latest
        ) as latest
    from (
        select
            *,
            last(cell_value, true) over (
                partition by {{ row_identity() }}, life_number, column_name
                order by change_number
            ) as latest
        from (
            -- What the window over a column's cells sorts: a cell's value, and the version's own
            -- columns and whole image on its first cell only (a partial life's other cells would
            -- carry them through the sort as many times as the life has columns).
            select
                {{ row_identity() }},
                life_number,
                change_number,
                cell_index,
                column_name,
                changed_at,
                change_order,
                if(cell_index = 0, struct(
                    change_id, operation, next_change_id, next_operation, next_changed_at, reset, next_change_order,
                    before_image_source, changed_columns, is_carried, next_is_carried
                ), null) as version,
                if(is_whole_life, after_image, null) as whole_image,
                if(
                    not is_whole_life and map_contains_key(after_image, column_name),
                    struct(after_image[column_name] as column_value, change_order as set_order),
                    null
                ) as cell_value
            from (
                select
                    *,
                    size(life_columns) > 0 and smallest_image = size(life_columns) as is_whole_life
                from (
                    select
                        *,
                        array_distinct(flatten(collect_set(map_keys(after_image)) over life)) as life_columns,
                        min(coalesce(size(after_image), -1)) over life as smallest_image
                    from {{ lives }}
                    where not ends_row
                    window life as (partition by {{ row_identity() }}, life_number)
                )
            ) as lives
                lateral view posexplode(if(is_whole_life, array(cast(null as string)), life_columns)) as cell_index, column_name
        ) as exploded
    ) as cells
    left join (
        select
            database_name,
            table_name,
            table_incarnation,
            collect_list(struct(ordered_at, column_names, drops)) as drop_times
        from (
            select
                database_name,
                table_name,
                table_incarnation,
                ordered_at,
                array_distinct(collect_list(previous_name)) as column_names,
                collect_list(struct(struct({{ row_change_order() }}) as drop_order, previous_name as column_name)) as drops
            from {{ drops }}
            group by database_name, table_name, table_incarnation, ordered_at
        ) as timed
        group by database_name, table_name, table_incarnation
    ) as drops
        on
            cells.database_name = drops.database_name
            and cells.table_name = drops.table_name
            and cells.table_incarnation <=> drops.table_incarnation
{%- endmacro %}
