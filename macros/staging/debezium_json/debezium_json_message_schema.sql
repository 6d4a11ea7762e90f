{#- The Debezium change event value's `payload` (002 "Debezium Envelope", Debezium's MySQL
    connector): a row change (op, before, after, source, ts_ms) or a schema change topic event
    (source, databaseName, ddl, tableChanges). Only the fields the project reads; `transaction`
    and the rest are ignored. `tableChanges` is an array in Debezium and an object in 002, so it
    is read as JSON text here and parsed by `debezium_json_table_changes`. The nested
    `_corrupt_record` keeps the wrapped and bare payloads one type; Spark fills only a top-level one. -#}
{% macro debezium_json_payload_schema() -%}
    struct<
        `op`: string,
        `ts_ms`: bigint,
        `before`: {{ json_image_type() }},
        `after`: {{ json_image_type() }},
        `source`: struct<`db`: string, `table`: string, `file`: string, `pos`: bigint, `ts_ms`: bigint>,
        `databaseName`: string,
        `ddl`: string,
        `tableChanges`: string,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- The JSON converter's envelope {"schema": ..., "payload": ...}. Of the schema, only the row
    struct's fields are read (`schema.fields` holds `before` and `after`, each with its column
    fields): their logical type `name` and `parameters` say how to decode a value. -#}
{% macro debezium_json_envelope_schema() -%}
    struct<
        `schema`: struct<`fields`: array<struct<
            `field`: string,
            `fields`: array<struct<`field`: string, `name`: string, `parameters`: map<string, string>>>
        >>>,
        `payload`: {{ debezium_json_payload_schema() }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- `tableChanges` JSON text (an array, or 002's single object) as an array of entries, with a
    `_corrupt_record` that is set when it is not an object or array of the expected shape. -#}
{% macro debezium_json_table_changes(table_changes_json) -%}
    from_json(
        concat(
            '{"tableChanges":',
            if({{ json_opening_char(table_changes_json) }} = '{', concat('[', {{ table_changes_json }}, ']'), {{ table_changes_json }}),
            '}'
        ),
        'struct<`tableChanges`: array<{{ table_changes_schema() }}>, `_corrupt_record`: string>'
    )
{%- endmacro %}
