{#- Producers send epoch seconds or milliseconds, and 0 for unknown; clocks in other units send
    microseconds or nanoseconds. The unit is told by the magnitude, each unit over the same span
    (1e11 s, 1e14 ms, 1e17 µs: the year 5138; a bigint of nanoseconds ends in 2262), so no value
    overflows: below 1e11 seconds, then milliseconds, microseconds, nanoseconds. -#}
{% macro epoch_to_timestamp(epoch) -%}
    case
        when {{ epoch }} is null or {{ epoch }} <= 0 then null
        when {{ epoch }} < 100000000000 then timestamp_seconds({{ epoch }})
        when {{ epoch }} < 100000000000000 then timestamp_millis({{ epoch }})
        when {{ epoch }} < 100000000000000000 then timestamp_micros({{ epoch }})
        else timestamp_micros({{ epoch }} div 1000)
    end
{%- endmacro %}
