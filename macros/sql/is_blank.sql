{#- Empty or only whitespace (Spark's trim() removes spaces only, not tabs). -#}
{% macro is_blank(text) -%}
    ({{ text }} rlike '^\\s*$')
{%- endmacro %}
