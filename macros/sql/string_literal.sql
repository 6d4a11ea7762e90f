{#- A Spark SQL string literal for any text: backslashes and quotes escaped. -#}
{% macro string_literal(text) -%}
    '{{ text | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}


{#- `<expression> in (<the values as string literals>)`, or `false` for no values: Spark's SQL
    has no empty list. -#}
{% macro is_in(expression, values) -%}
    {%- if values -%}
        {{ expression }} in ({% for value in values %}{{ string_literal(value) }}{{ ', ' if not loop.last }}{% endfor %})
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}
