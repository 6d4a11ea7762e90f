{#- Canal's DDL EventType names (000) as the schema-change kinds shared by every format. The
    canal family (canal JSON, CloudCanal JSON) spells DDL this way. -#}
{% macro canal_ddl_kind(event_type) -%}
    case {{ event_type }}
        when 'ERASE' then 'DROP'
        when 'CINDEX' then 'CREATE_INDEX'
        when 'DINDEX' then 'DROP_INDEX'
        else {{ event_type }}
    end
{%- endmacro %}
