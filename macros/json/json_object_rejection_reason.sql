{#- Why a message parsed with an explicit schema (one holding _corrupt_record) is unusable: not
    JSON at all, JSON but not an object, or a field of the wrong JSON type. NULL when usable.
    Spark reads an object or array given for a string field as its JSON text, so `text_fields`
    (the strings that identify a message) have their JSON types checked apart. -#}
{% macro json_object_rejection_reason(message_json, parsed, text_fields) -%}
    case
        when {{ json_opening_char(message_json) }} != '{' then
            case
                when from_json(concat('[', {{ message_json }}, ']'), 'array<string>') is null then 'malformed_json'
                else 'not_a_json_object'
            end
        when {{ parsed }}._corrupt_record is not null then
            case
                when from_json({{ message_json }}, 'map<string,string>') is null then 'malformed_json'
                else 'invalid_field_type'
            end
        when exists(
            array(
                {%- for field in text_fields %}
                variant_get(try_parse_json({{ message_json }}), '$.{{ field }}'){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            value -> schema_of_variant(value) rlike '^(OBJECT|ARRAY)'
        ) then 'invalid_field_type'
    end
{%- endmacro %}
