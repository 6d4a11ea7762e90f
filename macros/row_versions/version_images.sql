{#- One row per version with its full image: a whole life's image, or the version's cells
    gathered; a column no image of the life carried yet has no cell value and is left out, and
    a version none of whose cells has one is left out. Gathered by a window on the partitioning
    the cells already have and kept from the first cell: grouped by the `version` struct, they
    cost more. Partitioned by life too, the versions come sorted as a window over a life's
    versions wants them. -#}
{% macro version_images(cells) -%}
    select
        {{ row_identity() }},
        life_number,
        change_number,
        changed_at,
        version.*,
        dropped_columns,
        row_image
    from (
        select
            *,
            coalesce(
                whole_image,
                map_from_entries(collect_list(if(latest is null, null, struct(column_name, latest.column_value))) over (
                    partition by {{ row_identity() }}, life_number, change_number
                ))
            ) as row_image
        from {{ cells }}
    ) as gathered
    where cell_index = 0 and (whole_image is not null or size(row_image) > 0)
{%- endmacro %}
