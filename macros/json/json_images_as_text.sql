{#- Row images arrive as JSON objects whose values may be strings, numbers, booleans or nested
    JSON. Variant keeps a number's exact value (a string cast would round it through a double). -#}
{% macro json_image_type() -%}
    map<string, variant>
{%- endmacro %}


{% macro json_images_as_text(images) -%}
    transform({{ images }}, image -> transform_values(image, (column_name, value) -> cast(value as string)))
{%- endmacro %}
