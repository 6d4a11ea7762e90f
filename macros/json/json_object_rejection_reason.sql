{#- Why a message parsed with an explicit schema (one holding _corrupt_record) is unusable: not
    exactly one JSON value, not an object, a key given twice, or a field of the wrong JSON type.
    NULL when usable. Spark's parser keeps the last of a repeated key and reads an object, array,
    number or boolean given for a string field as its text, so repeated keys and `text_fields`
    (the strings a message is read by) are checked apart. On Spark 4 both checks read
    `message_variant`, the message parsed once by `try_parse_json`. -#}
{% macro json_object_rejection_reason(message_json, parsed, text_fields, message_json_as_sent, message_variant) -%}
    case
        when not {{ is_one_json_value(message_json) }} then {{ json_unparsed_reason(message_json) }}
        when {{ json_opening_char(message_json) }} != '{' then 'not_a_json_object'
        {#- Before the repeated-key check: Spark 4.1+'s variant parser rejects a lone surrogate too. #}
        when {{ json_has_lone_surrogate(message_json) }} then 'invalid_unicode_escape'
        when {{ json_has_duplicate_key(message_json, message_variant) }} then 'duplicate_key'
        when {{ parsed }}._corrupt_record is not null then 'invalid_field_type'
        {%- if text_fields %}
        when {{ json_text_field_of_other_type(message_json_as_sent, text_fields, message_variant) }} then 'invalid_field_type'
        {%- endif %}
    end
{%- endmacro %}


{#- Why a text is not one JSON value: a string longer than the parser reads (Jackson's
    20,000,000 characters), else malformed. -#}
{% macro json_unparsed_reason(json) -%}
    if(
        length({{ json }}) > 20000000
        and exists(split({{ json_escapes_set_aside(json) }}, '"'), part -> length(part) > 20000000),
        'value_too_large',
        'malformed_json'
    )
{%- endmacro %}


{#- A \uD800-\uDFFF escape without its partner: no character, and a store writes it as `?`. An
    escaped backslash before a `u` is set aside first. -#}
{% macro json_has_lone_surrogate(json) -%}
    coalesce(
        instr({{ json }}, '\\u') > 0
        and {{ json_escapes_set_aside(json) }} rlike
            '(?i)\\\\ud[89ab][0-9a-f]{2}(?!\\\\ud[c-f][0-9a-f]{2})|(?<!\\\\ud[89ab][0-9a-f]{2})\\\\ud[c-f][0-9a-f]{2}',
        false
    )
{%- endmacro %}


{#- Spark's parser keeps the last of a repeated key; Spark 4's strict variant parser rejects it
    (`variant`: the text parsed by try_parse_json, NULL when it was rejected). Spark 3.5 compares
    the keys of each object in the text's key skeleton, innermost objects first. -#}
{% macro json_has_duplicate_key(json, variant) -%}
    {%- if spark_supports_variant() -%}
        {{ variant }} is null
    {%- else -%}
        aggregate(
            -- A pass per nesting level: the innermost objects' keys are compared, then the objects dropped.
            sequence(1, least(1000, greatest(1, length({{ json }}) - length(replace({{ json }}, '{', ''))))),
            named_struct('rest', {{ json_key_skeleton(json) }}, 'repeated', false),
            (state, level) -> if(
                state.repeated or instr(state.rest, '{') = 0,
                state,
                named_struct(
                    'rest', regexp_replace(state.rest, '\\{[^{}]*\\}', ''),
                    'repeated', exists(
                        regexp_extract_all(state.rest, '\\{[^{}]*\\}', 0),
                        object -> size(array_distinct(regexp_extract_all(object, 'k[0-9A-F]*;', 0)))
                            != size(regexp_extract_all(object, 'k[0-9A-F]*;', 0))
                    )
                )
            ),
            state -> state.repeated
        )
    {%- endif -%}
{%- endmacro %}


{#- The text's braces and object keys only, each key as k<hex of its text>; (values dropped). -#}
{% macro json_key_skeleton(json) -%}
    array_join(
        transform(
            regexp_extract_all({{ json_escapes_set_aside(json) }}, '"[^"]*"\\s*:|"[^"]*"|[{}]', 0),
            token -> case
                when token in ('{', '}') then token
                when token rlike ':$' then concat('k', hex(regexp_extract(token, '^"([^"]*)"', 1)), ';')
                else ''
            end
        ),
        ''
    )
{%- endmacro %}


{#- Spark's parser reads an object, array, number or boolean given for a string field as its text.
    Spark 4 asks `variant` (the text parsed by try_parse_json) each field's type; Spark 3.5
    re-parses a field whose text looks like one, typed as what it looks like. -#}
{% macro json_text_field_of_other_type(json, text_fields, variant) -%}
    {%- if spark_supports_variant() -%}
        exists(
            array(
                {%- for field in text_fields %}
                variant_get({{ variant }}, '$.{{ field }}'){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            value -> schema_of_variant(value) not in ('STRING', 'VOID')
        )
    {%- else -%}
        (
            {%- for field in text_fields %}
            {{ 'or ' if not loop.first }}coalesce(try_element_at(transform(
                array(get_json_object({{ json }}, '$.{{ field }}')),
                text -> case
                    when startswith(text, '{') then {{ json_field_has_type(json, field, 'struct<>') }}
                    when startswith(text, '[') then {{ json_field_has_type(json, field, 'array<string>') }}
                    when text in ('true', 'false') then {{ json_field_has_type(json, field, 'boolean') }}
                    when text rlike '^-?[0-9]' then {{ json_field_has_type(json, field, 'double') }}
                end
            ), 1), false)
            {%- endfor %}
        )
    {%- endif -%}
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
