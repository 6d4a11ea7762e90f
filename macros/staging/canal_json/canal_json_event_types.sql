{#- Canal EventType names (000) by what they carry. -#}
{% macro canal_json_event_types(category) -%}
    {%- set event_types = {
        'row_change': ['INSERT', 'UPDATE', 'DELETE'],
        'schema_change': ['CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'],
        'control': ['GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT'],
    } -%}
    ('{{ event_types[category] | join("', '") }}')
{%- endmacro %}


{#- Canal's DDL event names as the schema-change kinds shared by every format. -#}
{% macro canal_json_ddl_kind(event_type) -%}
    case {{ event_type }}
        when 'ERASE' then 'DROP'
        when 'CINDEX' then 'CREATE_INDEX'
        when 'DINDEX' then 'DROP_INDEX'
        else {{ event_type }}
    end
{%- endmacro %}
