{#- The value of a table's property (`show tblproperties`), or none when it has no such property:
    what a run noted on a table for the next one. -#}
{% macro table_property(relation, name) -%}
    {%- for key, value in run_query('show tblproperties ' ~ relation).rows if key == name -%}
        {{ return(value) }}
    {%- endfor -%}
    {{ return(none) }}
{%- endmacro %}


{#- Sets a table's property. -#}
{% macro set_table_property(relation, name, value) -%}
    {%- do run_query('alter table ' ~ relation ~ ' set tblproperties (' ~ string_literal(name) ~ ' = ' ~ string_literal(value) ~ ')') -%}
{%- endmacro %}
