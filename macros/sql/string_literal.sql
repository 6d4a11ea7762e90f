{#- A Spark SQL string literal for any text: backslashes and quotes escaped. -#}
{% macro string_literal(text) -%}
    '{{ text | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}


{#- A SQL list of string literals, for `in`. -#}
{% macro sql_list(values) -%}
    ({% for value in values %}{{ string_literal(value) }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}
