{#- The `tableChanges` block that CloudCanal, canal-with-tableChanges and Debezium DDL carry (002). -#}
{% macro table_changes_schema() -%}
    struct<
        `type`: string,
        `table`: struct<
            `columns`: array<struct<`name`: string, `position`: int, `jdbcType`: int, `typeName`: string, `typeExpression`: string>>,
            `primaryKeyColumnNames`: array<string>
        >
    >
{%- endmacro %}
