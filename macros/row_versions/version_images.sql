{#- One row per version with its full image: a whole life's image, or the version's cells
    gathered; a column no image of the life carried yet has no cell value and is left out. -#}
{% macro version_images(cells) -%}
    select
        {{ row_identity() }},
        change_number,
        version.*,
        coalesce(
            any_value(whole_image),
            map_from_entries(collect_list(struct(column_name, latest.column_value)) filter (where latest is not null))
        ) as row_image
    from {{ cells }}
    where whole_image is not null or latest is not null
    group by {{ row_identity() }}, change_number, version
{%- endmacro %}
