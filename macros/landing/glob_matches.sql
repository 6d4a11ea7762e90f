{#- Whether the file name at the end of `path` matches a landing glob as Spark's `pathGlobFilter`
    reads it (`*` any characters, `?` one, `{a,b}` either); false without a glob. -#}
{% macro glob_matches(path, glob) -%}
    {%- if glob -%}
        {%- set pattern = namespace(regex='') -%}
        {%- for character in glob -%}
            {%- if character == '*' -%}{%- set pattern.regex = pattern.regex ~ '.*' -%}
            {%- elif character == '?' -%}{%- set pattern.regex = pattern.regex ~ '.' -%}
            {%- elif character == '{' -%}{%- set pattern.regex = pattern.regex ~ '(' -%}
            {%- elif character == '}' -%}{%- set pattern.regex = pattern.regex ~ ')' -%}
            {%- elif character == ',' -%}{%- set pattern.regex = pattern.regex ~ '|' -%}
            {%- elif character.isalnum() or character in '_-' -%}{%- set pattern.regex = pattern.regex ~ character -%}
            {%- else -%}{%- set pattern.regex = pattern.regex ~ '\\\\' ~ character -%}
            {%- endif -%}
        {%- endfor -%}
        regexp_extract({{ path }}, '[^/]*$', 0) rlike '^{{ pattern.regex }}$'
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}
