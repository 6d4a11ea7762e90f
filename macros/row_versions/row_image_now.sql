{#- A version's `row_image` without the columns dropped while it was open (`dropped_columns`):
    for a current version, the row as the source holds it now. A column added again after its
    drop is null there until the row's next change, as in the source's rows. -#}
{% macro row_image_now() -%}
    map_filter(row_image, (column_name, value) -> not array_contains(dropped_columns, column_name))
{%- endmacro %}
