{#- An Oracle GoldenGate for Big Data message of the JSON formatter, operation modeled (the
    Kafka handler's `format=json`): one operation of the source trail. `before` and `after` are
    the row images as column name to value; the formatter sends numbers as JSON numbers, or every
    value as a string (`treatAllColumnsAsStrings`). `tokens` is not read: it never enters an
    image. -#}
{% macro ogg_json_message_schema() -%}
    struct<
        `table`: string,
        `op_type`: string,
        `op_ts`: string,
        `current_ts`: string,
        `pos`: string,
        `primary_keys`: array<string>,
        `before`: {{ json_image_type() }},
        `after`: {{ json_image_type() }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the JSON formatter's operation fields. -#}
{% macro ogg_json_shape(keys) -%}
    arrays_overlap({{ keys }}, array('op_type', 'op_ts'))
{%- endmacro %}


{#- The formatter's default `op_type` keys as the shared operations: I, U, D and T (a TRUNCATE,
    which carries no statement). A primary key update is an ordinary U whose images hold the old
    and the new key. NULL for any other key. -#}
{% macro ogg_json_operation(op_type) -%}
    case {{ op_type }}
        when 'I' then 'INSERT'
        when 'U' then 'UPDATE'
        when 'D' then 'DELETE'
        when 'T' then 'TRUNCATE'
    end
{%- endmacro %}


{#- `table` is the qualified name "<schema>.<table>": the schema is the database, the table what
    follows the first dot (so "<catalog>.<schema>.<table>" keeps "<schema>.<table>"). NULL for an
    empty part or without a dot. -#}
{% macro ogg_json_database_name(qualified_name) -%}
    if(instr({{ qualified_name }}, '.') > 0, nullif(substring_index({{ qualified_name }}, '.', 1), ''), null)
{%- endmacro %}


{% macro ogg_json_table_name(qualified_name) -%}
    if(
        instr({{ qualified_name }}, '.') > 0,
        nullif(substr({{ qualified_name }}, instr({{ qualified_name }}, '.') + 1), ''),
        null
    )
{%- endmacro %}


{#- `op_ts` ("YYYY-MM-DD HH:MM:SS.ffffff") and `current_ts` (the same, or with a T between date and
    time under `iso8601Format`) carry no zone: read as UTC, the fraction to the microsecond. NULL
    for any other text. -#}
{% macro ogg_json_timestamp(text) -%}
    if(
        {{ text }} rlike '^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?$',
        try_cast(concat({{ text }}, 'Z') as timestamp),
        null
    )
{%- endmacro %}


{#- `pos` is the trail position: the trail file's sequence number and the record's offset (RBA) in
    it, ten digits each. As the shared position text "<sequence>:<rba>" the sequence keeps its ten
    digits (so text order is number order) and the offset is ordered as a number. NULL for any
    other `pos`. -#}
{% macro ogg_json_source_position(pos) -%}
    if({{ pos }} rlike '^[0-9]{20}$', concat(substr({{ pos }}, 1, 10), ':', substr({{ pos }}, 11)), null)
{%- endmacro %}
