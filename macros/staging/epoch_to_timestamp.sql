{#- Producers send epoch seconds or milliseconds, and 0 for unknown. Values below 1e11 are
    seconds (1e11 ms is 1973; 1e11 s is year 5138). -#}
{% macro epoch_to_timestamp(epoch) -%}
    case
        when {{ epoch }} is null or {{ epoch }} <= 0 then null
        when {{ epoch }} < 100000000000 then timestamp_seconds({{ epoch }})
        else timestamp_millis({{ epoch }})
    end
{%- endmacro %}
