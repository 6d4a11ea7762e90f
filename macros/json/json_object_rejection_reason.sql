{#- Why a message parsed with an explicit schema (one holding _corrupt_record) is unusable:
    not an object, not JSON at all, or a field of the wrong JSON type. NULL when usable. -#}
{% macro json_object_rejection_reason(message_json, parsed) -%}
    case
        when {{ json_opening_char(message_json) }} != '{' then 'not_a_json_object'
        when {{ parsed }}._corrupt_record is not null then
            case
                when from_json({{ message_json }}, 'map<string,string>') is null then 'malformed_json'
                else 'invalid_field_type'
            end
    end
{%- endmacro %}
