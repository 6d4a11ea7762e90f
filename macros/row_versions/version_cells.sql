{#- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
    value of the row's life: one cell per version and column of the life (every column an image
    of the life carried; a life's images have few distinct column sets), filled from the last
    image that carried that column, unless the column was dropped since (`drops`,
    `column_drops`): the source row lost that value. A life whose every image carries all its
    columns is whole: each version is its image, one row and no cells (a wide table's versions
    would otherwise be as many rows as their columns). A window, not a join back: each join
    back would read the row changes again. Each version also names its image's columns dropped
    while it was open (`dropped_columns`): their values predate the drop. -#}
{% macro version_cells(lives, drops) -%}
    select
        {{ row_identity() }},
        change_number,
        struct(
            change_id, operation, changed_at, next_change_id, next_operation, next_changed_at, reset, life_number,
            before_image_source, changed_columns, is_carried, next_is_carried, dropped_columns
        ) as version,
        whole_image,
        column_name,
        if(
            exists(
                column_drops,
                dropped -> dropped.column_name = column_name
                    and dropped.drop_order > latest.set_order
                    and dropped.drop_order < change_order
            ),
            null,
            latest
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
                size(life_columns) > 0 and smallest_image = size(life_columns) as is_whole_life,
                -- Once per version, before its cells are exploded.
                array_distinct(transform(
                    filter(
                        column_drops,
                        dropped -> dropped.drop_order > change_order
                            and coalesce(dropped.drop_order < coalesce(reset.reset_order, next_change_order), true)
                    ),
                    dropped -> dropped.column_name
                )) as dropped_columns
            from (
                select
                    lives.*,
                    coalesce(drops.column_drops, array()) as column_drops,
                    array_distinct(flatten(collect_set(map_keys(lives.after_image)) over life)) as life_columns,
                    min(coalesce(size(lives.after_image), -1)) over life as smallest_image
                from {{ lives }} as lives
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
                        lives.database_name = drops.database_name
                        and lives.table_name = drops.table_name
                        and lives.table_incarnation <=> drops.table_incarnation
                where not lives.ends_row
                window life as (partition by {{ row_identity('lives') }}, lives.life_number)
            )
        ) as lives
            lateral view explode(if(is_whole_life, array(cast(null as string)), life_columns)) as column_name
    ) as cells
{%- endmacro %}
