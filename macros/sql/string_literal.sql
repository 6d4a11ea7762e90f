{#- A Spark SQL string literal for any text: backslashes and quotes escaped. -#}
{% macro string_literal(text) -%}
    '{{ text | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
