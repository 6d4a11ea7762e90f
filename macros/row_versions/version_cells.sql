{#- A partial image (KafkaRiverCanal sends changed columns only) keeps every column's latest
    value of the row's life: one cell per version and column of the life (every column an image
    of the life carried; a life's images have few distinct column sets), filled from the last
    image that carried that column. A window, not a join back: each join back would read the
    row changes again. -#}
{% macro version_cells(lives) -%}
    select
        database_name,
        table_name,
        primary_key,
        change_number,
        struct(
            change_id, operation, changed_at, next_change_id, next_operation, next_changed_at, reset, life_number,
            before_image_source, changed_columns
        ) as version,
        column_name,
        last(
            if(map_contains_key(after_image, column_name), struct(after_image[column_name] as column_value), null),
            true
        ) over (
            partition by database_name, table_name, primary_key, life_number, column_name
            order by change_number
        ) as latest
    from (
        select
            *,
            array_distinct(flatten(collect_set(map_keys(after_image)) over (
                partition by database_name, table_name, primary_key, life_number
            ))) as life_columns
        from {{ lives }}
    ) as lives
        lateral view explode(life_columns) as column_name
    where not ends_row
{%- endmacro %}
