{#- Row images arrive as JSON objects whose values may be strings, numbers, booleans or nested
    JSON. Variant keeps a number's exact value (a string cast would round it through a double). -#}
{% macro json_image_type() -%}
    map<string, {{ json_value_type() }}>
{%- endmacro %}


{#- Spark 3.5 has no variant: a value is read as its JSON text, exact once json_exact_numbers
    has quoted fractional numbers. -#}
{% macro json_value_type() -%}
    {{ 'variant' if spark_supports_variant() else 'string' }}
{%- endmacro %}


{% macro json_images_as_text(images) -%}
    transform({{ images }}, image -> transform_values(image, (column_name, value) -> cast(value as string)))
{%- endmacro %}
