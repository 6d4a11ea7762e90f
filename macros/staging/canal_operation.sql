{#- The shared operation of a canal EventType name (000): DML and most DDL names are the shared
    words already; ERASE, CINDEX and DINDEX become DROP, CREATE_INDEX and DROP_INDEX. The canal
    family (canal JSON, CloudCanal JSON) spells operations this way. -#}
{% macro canal_operation(event_type) -%}
    case {{ event_type }}
        when 'ERASE' then 'DROP'
        when 'CINDEX' then 'CREATE_INDEX'
        when 'DINDEX' then 'DROP_INDEX'
        else {{ event_type }}
    end
{%- endmacro %}
