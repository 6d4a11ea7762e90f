{#- The `tableChanges` block that CloudCanal, canal-with-tableChanges and Debezium DDL carry (002). -#}
{% macro table_changes_schema() -%}
    struct<
        `type`: string,
        `table`: struct<
            `columns`: array<struct<`name`: string, `position`: int, `jdbcType`: int, `typeName`: string, `typeExpression`: string, `length`: int, `scale`: int>>,
            `primaryKeyColumnNames`: array<string>
        >
    >
{%- endmacro %}


{#- A `tableChanges` column's type as DDL spells it: its `typeExpression` (else `typeName`), with
    the precision and scale Debezium and Maxwell give apart (`length`, `scale`) where a
    decimal's expression lacks them: `DECIMAL` and 10, 2 are `DECIMAL(10,2)`. -#}
{% macro table_column_type(table_column) -%}
    {%- set type = 'coalesce(' ~ table_column ~ '.typeExpression, ' ~ table_column ~ '.typeName)' -%}
    if(
        {{ type }} rlike '(?i)^\\s*(decimal|numeric|number|dec|fixed)\\s*$' and {{ table_column }}.length > 0,
        concat({{ type }}, '(', {{ table_column }}.length, ',', coalesce({{ table_column }}.scale, 0), ')'),
        {{ type }}
    )
{%- endmacro %}
