{#- The CloudCanal Json message (002, "CloudCanal Json"). -#}
{% macro cloudcanal_json_message_schema() -%}
    struct<
        `action`: string,
        `bid`: bigint,
        `before`: array<{{ json_image_type() }}>,
        `data`: array<{{ json_image_type() }}>,
        `db`: string,
        `schema`: string,
        `table`: string,
        `dbValType`: map<string, string>,
        `jdbcType`: map<string, int>,
        `entryType`: string,
        `isDdl`: boolean,
        `pks`: array<string>,
        `execTs`: bigint,
        `sendTs`: bigint,
        `sql`: string,
        `tableChanges`: {{ table_changes_schema() }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): CloudCanal's own field names. -#}
{% macro cloudcanal_json_shape(keys) -%}
    arrays_overlap({{ keys }}, array('entryType', 'dbValType', 'sendTs', 'execTs'))
{%- endmacro %}


{#- What a message carries, by `entryType` (canal's EntryType names, 000) and `action`.
    Transaction markers and heartbeats carry no rows, whatever their other fields; ROWDATA
    messages (or those without an entry type) are judged by `action`: 002 shows INSERT, UPDATE,
    DELETE and ALTER; CloudCanal descends from canal, so its DDL actions are canal's EventType
    names, plus the plain SQL DROP. -#}
{% macro cloudcanal_json_event_kind(entry_type, action) -%}
    case
        when {{ entry_type }} in ('TRANSACTIONBEGIN', 'TRANSACTIONEND', 'HEARTBEAT', 'GTIDLOG') then 'control'
        when {{ action }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ action }} in ('CREATE', 'ALTER', 'DROP', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX')
            then 'schema_change'
    end
{%- endmacro %}
