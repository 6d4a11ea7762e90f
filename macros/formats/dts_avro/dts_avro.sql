{#- The Aliyun DTS Avro `Record` (the DTS subscribe SDK's schema, src/cdc_lakehouse/avro/schemas/
    dts_avro.avsc) in Avro's JSON encoding: unions are null or wrapped as {"<type name>": value},
    bytes are strings of code points U+0000-U+00FF. Only the fields the staging reads are typed;
    an image value (one union branch of Integer, Character, Decimal, ...) is read whole. -#}
{% macro dts_avro_message_schema() -%}
    {%- set image = 'struct<`string`: string, `array`: array<map<string, ' ~ json_value_type() ~ '>>>' -%}
    struct<
        `version`: int,
        `id`: bigint,
        `sourceTimestamp`: bigint,
        `sourcePosition`: string,
        `safeSourcePosition`: string,
        `sourceTxid`: string,
        `source`: struct<`sourceType`: string, `version`: string>,
        `operation`: string,
        `objectName`: struct<`string`: string>,
        `processTimestamps`: struct<`array`: array<bigint>>,
        `tags`: map<string, string>,
        `fields`: struct<`string`: string, `array`: array<struct<`name`: string, `dataTypeNumber`: int>>>,
        `beforeImages`: {{ image }},
        `afterImages`: {{ image }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the DTS Record's own field names. -#}
{% macro dts_avro_shape(keys) -%}
    arrays_overlap({{ keys }}, array('objectName', 'sourcePosition', 'safeSourcePosition', 'sourceTxid'))
{%- endmacro %}


{#- The Operation enum by what it carries; every other symbol is transaction or stream control. -#}
{% macro dts_avro_event_kind(operation) -%}
    case
        when {{ operation }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ operation }} = 'DDL' then 'schema_change'
        when {{ operation }} in (
            'BEGIN', 'COMMIT', 'ROLLBACK', 'ABORT', 'HEARTBEAT', 'CHECKPOINT', 'COMMAND', 'FILL', 'FINISH',
            'CONTROL', 'RDB', 'NOOP', 'INIT'
        ) then 'control'
    end
{%- endmacro %}


{#- `objectName` is "<database>.<table>": the table is what follows the first dot. -#}
{% macro dts_avro_table_name(object_name) -%}
    if(instr({{ object_name }}, '.') > 0, substr({{ object_name }}, instr({{ object_name }}, '.') + 1), null)
{%- endmacro %}


{#- The primary key's columns, from the tag `pk_uk_info` ({"PRIMARY": [...], ...}). -#}
{% macro dts_avro_key_columns(tags) -%}
    try_element_at(from_json(try_element_at({{ tags }}, 'pk_uk_info'), 'map<string, array<string>>'), 'PRIMARY')
{%- endmacro %}


{#- Column name -> MySQL type name, from the fields' `dataTypeNumber` (MySQL's column type
    numbers, named by `type_names`; a number it lacks stays as its text). NULL unless the names
    are distinct and named. -#}
{% macro dts_avro_column_types(fields, type_names) -%}
    if(
        size(array_distinct(array_compact(transform({{ fields }}, field -> field.name)))) = {{ array_size(fields) }},
        map_from_entries(transform(
            {{ fields }},
            field -> named_struct(
                'key', field.name,
                'value', coalesce(try_element_at({{ type_names }}, cast(field.dataTypeNumber as string)), cast(field.dataTypeNumber as string))
            )
        )),
        null
    )
{%- endmacro %}


{#- `sourcePosition` "<offset>@<binlog file>" as "<file>:<offset>", like the other formats'
    binlog positions; any other form as sent. -#}
{% macro dts_avro_source_position(position) -%}
    case
        when {{ position }} rlike '^([0-9]+)@([^@]+)$' then regexp_replace({{ position }}, '^([0-9]+)@([^@]+)$', '$2:$1')
        else nullif({{ position }}, '')
    end
{%- endmacro %}
