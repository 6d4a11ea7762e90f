{#- Canal EventType names (000) by what they carry. -#}
{% macro canal_json_event_types(category) -%}
    {%- set event_types = {
        'row_change': ['INSERT', 'UPDATE', 'DELETE'],
        'schema_change': ['CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'],
        'control': ['GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT'],
    } -%}
    ('{{ event_types[category] | join("', '") }}')
{%- endmacro %}

