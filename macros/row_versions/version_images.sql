{#- One row per version with its full image, gathered from its cells; a column no image of the
    life carried yet has no cell value and is left out. -#}
{% macro version_images(cells) -%}
    select
        database_name,
        table_name,
        primary_key,
        change_number,
        version.*,
        map_from_entries(collect_list(struct(column_name, latest.column_value))) as row_image
    from {{ cells }}
    where latest is not null
    group by database_name, table_name, primary_key, change_number, version
{%- endmacro %}
