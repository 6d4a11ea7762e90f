{#- CloudCanal `action` values by what they carry. 002 shows INSERT / UPDATE / DELETE and ALTER;
    CloudCanal descends from canal, so its DDL actions are taken as canal's EventType names, plus
    the plain SQL DROP. canal_ddl_kind maps all of them to the shared kinds. -#}
{% macro cloudcanal_json_actions(category) -%}
    {%- set actions = {
        'row_change': ['INSERT', 'UPDATE', 'DELETE'],
        'schema_change': ['CREATE', 'ALTER', 'DROP', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX'],
    } -%}
    ('{{ actions[category] | join("', '") }}')
{%- endmacro %}


{#- `entryType` values (canal's EntryType names, 000) that carry no rows: skipped. ROWDATA
    messages are judged by `action`. -#}
{% macro cloudcanal_json_control_entry_types() -%}
    ('TRANSACTIONBEGIN', 'TRANSACTIONEND', 'HEARTBEAT', 'GTIDLOG')
{%- endmacro %}
