{#- `<column> not in (<values as string literals>)`, `true` when there are none. Literals, not a
    subquery, so that Spark prunes the files of a file source on `_metadata` filters unread. -#}
{% macro not_in_literals(column, values) -%}
    {%- if values | length == 0 -%}
        true
    {%- else -%}
        {{ column }} not in ({% for value in values %}{{ string_literal(value) }}{{ ', ' if not loop.last }}{% endfor %})
    {%- endif -%}
{%- endmacro %}
