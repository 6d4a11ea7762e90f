{#- The row struct's column fields from the envelope schema (`before`'s, else `after`'s); NULL
    without a schema. -#}
{% macro debezium_json_row_fields(message) -%}
    try_element_at(filter({{ message }}.schema.fields, row_struct -> row_struct.field in ('before', 'after')), 1).fields
{%- endmacro %}


{#- A `before` or `after` image as column to text, NULL when absent or empty (an empty image,
    as in 002's insert, is no image), values decoded by the envelope's row schema. -#}
{% macro debezium_json_image(image, row_fields) -%}
    case
        when size({{ image }}) > 0 then {{ connect_image_as_text(image, row_fields) }}
    end
{%- endmacro %}


{#- An image without the columns whose value is the connector's placeholder for a value it did
    not send (an unchanged TOASTed Postgres value), so that replicas keep their previous value;
    `unavailable_values` holds the placeholder's forms (`debezium_json_unavailable_values`). -#}
{% macro debezium_json_sent_columns(image, unavailable_values) -%}
    map_filter(
        {{ image }},
        (column_name, value) -> value is null or not array_contains({{ unavailable_values }}, value)
    )
{%- endmacro %}


{#- The forms Debezium gives its `unavailable.value.placeholder` (var
    `debezium_unavailable_value_placeholder`; "hex:<octets>" names bytes) in, by column type:
    its text; base64 of its bytes (a BYTES column read without its schema; with the schema
    they decode to its ISO-8859-1 text); a text array holding it; an integer array of its
    bytes (Java's signed bytes). -#}
{% macro debezium_json_unavailable_values() -%}
    {%- set placeholder = var('debezium_unavailable_value_placeholder') -%}
    {%- if placeholder.startswith('hex:') -%}
        {%- set bytes = 'unhex(' ~ string_literal(placeholder[4:]) ~ ')' -%}
    {%- else -%}
        {%- set bytes = 'encode(' ~ string_literal(placeholder) ~ ", 'UTF-8')" -%}
    {%- endif -%}
    array(
        decode({{ bytes }}, 'UTF-8'),
        decode({{ bytes }}, 'ISO-8859-1'),
        base64({{ bytes }}),
        to_json(array(decode({{ bytes }}, 'UTF-8'))),
        concat('[', array_join(transform({{ byte_values(bytes) }}, byte_value -> if(byte_value > 127, byte_value - 256, byte_value)), ','), ']')
    )
{%- endmacro %}
