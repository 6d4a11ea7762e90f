{#- The JSON text to give from_json so that numbers keep their exact text: fractional and
    exponent numbers outside strings are quoted first (`10.50` stays `10.50`, which a variant
    would read as 10.5, `1e400` as Infinity, and Spark 3.5's string field as a double's text),
    in texts that seem to hold one. Integers are left as they are, for the typed fields (times,
    ids) to read, except those no number type holds exactly: `-0` and 39 digits or more. -#}
{% macro json_exact_numbers(json) -%}
    if(
        {{ json_has_inexact_numbers(json) }},
        replace(replace(array_join(
            transform(
                -- Split at quotes: the even parts are outside strings.
                split({{ json_escapes_set_aside(json) }}, '"'),
                (part, i) -> if(
                    i % 2 = 0,
                    regexp_replace(part, '([:,\\[]\\s*)((?=-?[0-9]+[.eE]|-0(?![0-9])|-?[0-9]{39})-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?)', '$1"$2"'),
                    part
                )
            ),
            '"'
        ), '\u0001', '\\\\'), '\u0002', '\\"'),
        {{ json }}
    )
{%- endmacro %}


{#- A cheap test for a number json_exact_numbers quotes: fractional, exponent, -0 or 39 digits
    or more, followed by a delimiter, which a time inside a string ("05:24:37.625") is not. -#}
{% macro json_has_inexact_numbers(json) -%}
    {{ json }} rlike '[:,\\[]\\s*(-?[0-9]+(\\.[0-9]+([eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)|-0|-?[0-9]{39,})\\s*[,}\\]]'
{%- endmacro %}


{#- Escaped backslashes and quotes as the control characters U+0001 and U+0002 (JSON text holds
    none unescaped), so that every quote left delimits a string. -#}
{% macro json_escapes_set_aside(json) -%}
    regexp_replace(regexp_replace({{ json }}, '\\\\\\\\', '\u0001'), '\\\\"', '\u0002')
{%- endmacro %}
