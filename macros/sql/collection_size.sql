{#- Element count with NULL as 0, the same with ANSI mode on or off (size(NULL) is -1 when it is off,
    which dbt-spark sets). -#}
{% macro array_size(array) -%}
    size(coalesce({{ array }}, array()))
{%- endmacro %}


{% macro map_size(map) -%}
    size(coalesce({{ map }}, map()))
{%- endmacro %}
