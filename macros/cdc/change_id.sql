{#- Deterministic id of one row of one message: an exact redelivery (Kafka is at-least-once)
    gets the same id, so it can be dropped. -#}
{% macro change_id(source_format, message_json, row_index='0') -%}
    {{ dbt.hash("concat_ws('|', " ~ source_format ~ ", " ~ message_json ~ ", cast(" ~ row_index ~ " as string))") }}
{%- endmacro %}
