{#- The JSON value at `path` ('$', '$.a.b') of a `json_value_type` value, as `spark_type`, or NULL
    when it is absent or not of that type. Spark 3.5 holds the value as its JSON text, which a
    struct, array or map type is parsed from. -#}
{% macro json_value_get(value, path, spark_type) -%}
    {%- set text = value if path == '$' else 'get_json_object(' ~ value ~ ", '" ~ path ~ "')" -%}
    {%- if spark_supports_variant() -%}
        try_variant_get({{ value }}, '{{ path }}', '{{ spark_type }}')
    {%- elif spark_type.startswith(('struct', 'array', 'map')) -%}
        from_json({{ text }}, '{{ spark_type }}')
    {%- else -%}
        try_cast({{ text }} as {{ spark_type }})
    {%- endif -%}
{%- endmacro %}
