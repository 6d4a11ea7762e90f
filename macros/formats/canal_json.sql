{#- The canal FlatMessage (000), with 002's `tableChanges`; the 001 platform fills the same fields. -#}
{% macro canal_json_message_schema() -%}
    struct<
        `id`: bigint,
        `database`: string,
        `table`: string,
        `pkNames`: array<string>,
        `isDdl`: boolean,
        `type`: string,
        `es`: bigint,
        `ts`: bigint,
        `sql`: string,
        `sqlType`: map<string, int>,
        `mysqlType`: map<string, string>,
        `data`: array<{{ json_image_type() }}>,
        `old`: array<{{ json_image_type() }}>,
        `tableChanges`: {{ table_changes_schema() }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Canal EventType names (000) by what they carry. -#}
{% macro canal_json_event_kind(event_type) -%}
    case
        when {{ event_type }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ event_type }} in ('CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX')
            then 'schema_change'
        when {{ event_type }} in ('GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT') then 'control'
    end
{%- endmacro %}
