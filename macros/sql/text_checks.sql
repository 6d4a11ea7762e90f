{#- Bytes as UTF-8 text, NULL when they are not UTF-8. Spark 3.5 has no try_validate_utf8:
    decoding replaces what is not UTF-8, so there the text must encode back to the same bytes. -#}
{% macro utf8_text(bytes) -%}
    {%- if spark_supports_variant() -%}
        try_validate_utf8(cast({{ bytes }} as string))
    {%- else -%}
        if(encode(cast({{ bytes }} as string), 'UTF-8') = {{ bytes }}, cast({{ bytes }} as string), null)
    {%- endif -%}
{%- endmacro %}


{#- A time-zone ID Java knows. Spark 3.5 has no try_reflect: it parses the ID as a zone (`VV`). -#}
{% macro is_time_zone(zone) -%}
    {%- if spark_supports_variant() -%}
        try_reflect('java.time.ZoneId', 'of', {{ zone }}) is not null
    {%- else -%}
        try_to_timestamp({{ zone }}, 'VV') is not null
    {%- endif -%}
{%- endmacro %}
