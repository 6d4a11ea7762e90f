{#- The JSON text to give from_json so that numbers keep their exact value. Spark 4 reads them
    into variants exactly; Spark 3.5 reads a number given for a string as a double's text
    (1234567890.123456789 as 1.2345678901234567E9), so there a text that seems to hold a
    fractional or exponent number has those outside strings quoted first. -#}
{% macro json_exact_numbers(json) -%}
    {%- if spark_supports_variant() -%}
        {{ json }}
    {%- else -%}
        if(
            {{ json }} rlike '[:,\\[]\\s*-?[0-9]+[.eE]',
            replace(replace(array_join(
                transform(
                    -- Split at quotes: the even parts are outside strings.
                    split({{ json_escapes_set_aside(json) }}, '"'),
                    (part, i) -> if(
                        i % 2 = 0,
                        regexp_replace(part, '([:,\\[]\\s*)((?=-?[0-9]+[.eE])-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?)', '$1"$2"'),
                        part
                    )
                ),
                '"'
            ), '\u0001', '\\\\'), '\u0002', '\\"'),
            {{ json }}
        )
    {%- endif -%}
{%- endmacro %}


{#- Escaped backslashes and quotes as the control characters U+0001 and U+0002 (JSON text holds
    none unescaped), so that every quote left delimits a string. -#}
{% macro json_escapes_set_aside(json) -%}
    regexp_replace(regexp_replace({{ json }}, '\\\\\\\\', '\u0001'), '\\\\"', '\u0002')
{%- endmacro %}
