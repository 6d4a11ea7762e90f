{#- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
    value of the row's life: one cell per version and column of the life (every column an image
    of the life carried; a life's images have few distinct column sets), filled from the last
    image that carried that column, unless the column was dropped since (`drops`,
    `column_drops`): the source row lost that value. A life whose every image carries all its
    columns is whole: each version is its image, one row and no cells (a wide table's versions
    would otherwise be as many rows as their columns). A window, not a join back: each join
    back would read the row changes again. Each version also names its image's columns dropped
    while it was open (`dropped_columns`): their values predate the drop. A table's drops join
    its cells after the windows, broadcast: carried through their sorts, every version would
    hold all its table's drops, and a table's versions would meet in one task. -#}
{% macro version_cells(lives, drops) -%}
    select /*+ broadcast(drops) */
        {{ row_identity('cells') }},
        cells.change_number,
        struct(
            cells.change_id, cells.operation, cells.changed_at, cells.next_change_id, cells.next_operation,
            cells.next_changed_at, cells.reset, cells.life_number, cells.before_image_source, cells.changed_columns,
            cells.is_carried, cells.next_is_carried,
            array_distinct(transform(
                filter(
                    coalesce(drops.column_drops, array()),
                    dropped -> dropped.drop_order > cells.change_order
                        and coalesce(dropped.drop_order < coalesce(cells.reset.reset_order, cells.next_change_order), true)
                ),
                dropped -> dropped.column_name
            )) as dropped_columns
        ) as version,
        cells.whole_image,
        cells.column_name,
        if(
            exists(
                drops.column_drops,
                dropped -> dropped.column_name = cells.column_name
                    and dropped.drop_order > cells.latest.set_order
                    and dropped.drop_order < cells.change_order
            ),
            null,
            cells.latest
        ) as latest
    from (
        select
            *,
            if(is_whole_life, after_image, null) as whole_image,
            if(
                is_whole_life,
                null,
                last(
                    if(
                        map_contains_key(after_image, column_name),
                        struct(after_image[column_name] as column_value, change_order as set_order),
                        null
                    ),
                    true
                ) over (
                    partition by {{ row_identity() }}, life_number, column_name
                    order by change_number
                )
            ) as latest
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
            lateral view explode(if(is_whole_life, array(cast(null as string)), life_columns)) as column_name
    ) as cells
    left join (
        select
            database_name,
            table_name,
            table_incarnation,
            collect_list(struct(struct({{ row_change_order() }}) as drop_order, previous_name as column_name))
                as column_drops
        from {{ drops }}
        group by database_name, table_name, table_incarnation
    ) as drops
        on
            cells.database_name = drops.database_name
            and cells.table_name = drops.table_name
            and cells.table_incarnation <=> drops.table_incarnation
{%- endmacro %}
