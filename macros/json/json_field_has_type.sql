{#- Spark 3.5's type probe: from_json reads the field as `spark_type`, or gives NULL when its
    JSON value is of another type. -#}
{% macro json_field_has_type(json, field, spark_type) -%}
    {%- set schema = namespace(ddl=spark_type) -%}
    {%- for name in field.split('.') | reverse -%}
        {%- set schema.ddl = 'struct<`' ~ name ~ '`: ' ~ schema.ddl ~ '>' -%}
    {%- endfor -%}
    from_json({{ json }}, '{{ schema.ddl }}').`{{ field.split('.') | join('`.`') }}` is not null
{%- endmacro %}
