{#- Debezium `op` codes by what they carry: c create, u update, d delete, r snapshot read, and
    002's `i` insert are row changes; t truncate and 002's `a` alter are schema changes. A schema
    change topic event has no `op` at all. -#}
{% macro debezium_json_op_codes(category) -%}
    {%- set op_codes = {
        'row_change': ['c', 'r', 'i', 'u', 'd'],
        'schema_change': ['t', 'a'],
    } -%}
    ('{{ op_codes[category] | join("', '") }}')
{%- endmacro %}


{% macro debezium_json_operation(op) -%}
    case
        when {{ op }} in ('c', 'r', 'i') then 'INSERT'
        when {{ op }} = 'u' then 'UPDATE'
        when {{ op }} = 'd' then 'DELETE'
    end
{%- endmacro %}


{#- The shared schema-change kind: a truncate event is TRUNCATE; a RENAME or index statement
    is what its SQL says (Debezium reports those as an ALTER table change); otherwise the
    `tableChanges` type (CREATE, ALTER, DROP) where there is one, 002's `a` is ALTER, else the
    statement's own leading words. -#}
{% macro debezium_json_ddl_kind(op, table_change_type, sql_text) -%}
    case
        when {{ op }} = 't' then 'TRUNCATE'
        when {{ ddl_kind_from_sql(sql_text) }} in ('RENAME', 'CREATE_INDEX', 'DROP_INDEX')
            then {{ ddl_kind_from_sql(sql_text) }}
        when {{ table_change_type }} in ('CREATE', 'ALTER', 'DROP') then {{ table_change_type }}
        when {{ op }} = 'a' then 'ALTER'
        else {{ ddl_kind_from_sql(sql_text) }}
    end
{%- endmacro %}
