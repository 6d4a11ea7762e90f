{#- Why a message parsed with an explicit schema (one holding _corrupt_record) is unusable: not
    exactly one JSON value, not an object, a key given twice, or a field of the wrong JSON type.
    NULL when usable. Spark's parser keeps the last of a repeated key and reads an object, array,
    number or boolean given for a string field as its text, so the strict variant parser judges
    repeated keys and `text_fields` (the strings a message is read by) have their types checked apart. -#}
{% macro json_object_rejection_reason(message_json, parsed, text_fields) -%}
    case
        when not {{ is_one_json_value(message_json) }} then 'malformed_json'
        when {{ json_opening_char(message_json) }} != '{' then 'not_a_json_object'
        when try_parse_json({{ message_json }}) is null then 'duplicate_key'
        when {{ parsed }}._corrupt_record is not null then 'invalid_field_type'
        when exists(
            array(
                {%- for field in text_fields %}
                variant_get(try_parse_json({{ message_json }}), '$.{{ field }}'){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            value -> schema_of_variant(value) not in ('STRING', 'VOID')
        ) then 'invalid_field_type'
    end
{%- endmacro %}


{#- Exactly one JSON value, by the JSON standard: Spark's parser otherwise takes NaN, Infinity and
    single quotes, and ignores whatever follows the first value (two messages run together).
    Nesting deeper than the parser's limit (1000) fails too. -#}
{% macro is_one_json_value(json) -%}
    coalesce(
        size(from_json(
            concat('[', {{ json }}, ']'),
            'array<string>',
            map('allowNonNumericNumbers', 'false', 'allowSingleQuotes', 'false')
        )) = 1,
        false
    )
{%- endmacro %}
