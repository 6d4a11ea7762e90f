{#- The JSON value at `path` ('$', '$.a.b') of a `json_value_type` value, as `spark_type`, or NULL
    when it is absent or not of that type. Spark 3.5 holds the value as its JSON text. -#}
{% macro json_value_get(value, path, spark_type) -%}
    {%- if spark_supports_variant() -%}
        try_variant_get({{ value }}, '{{ path }}', '{{ spark_type }}')
    {%- elif path == '$' -%}
        try_cast({{ value }} as {{ spark_type }})
    {%- else -%}
        try_cast(get_json_object({{ value }}, '{{ path }}') as {{ spark_type }})
    {%- endif -%}
{%- endmacro %}
