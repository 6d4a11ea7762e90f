{#- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
    value of the row's life: one cell per version and column of the life (every column an image
    of the life carried; a life's images have few distinct column sets), filled from the last
    image that carried that column. A life whose every image carries all its columns is whole:
    each version is its image, one row and no cells (a wide table's versions would otherwise
    be as many rows as their columns). A window, not a join back: each join back would read the
    row changes again. -#}
{% macro version_cells(lives) -%}
    select
        {{ row_identity() }},
        change_number,
        struct(
            change_id, operation, changed_at, next_change_id, next_operation, next_changed_at, reset, life_number,
            before_image_source, changed_columns, is_carried, next_is_carried
        ) as version,
        if(is_whole_life, after_image, null) as whole_image,
        column_name,
        if(
            is_whole_life,
            null,
            last(
                if(map_contains_key(after_image, column_name), struct(after_image[column_name] as column_value), null),
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
{%- endmacro %}
