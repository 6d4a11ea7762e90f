{#- Whether the file name at the end of `path` matches a landing glob as Spark's `pathGlobFilter`
    reads it; false without a glob. -#}
{% macro glob_matches(path, glob) -%}
    {%- if glob -%}
        regexp_extract({{ path }}, '[^/]*$', 0) rlike {{ string_literal('^' ~ glob_regex(glob) ~ '$') }}
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}


{#- The Java regular expression (unanchored) of a glob: `*` any characters, `?` one, `{a,b}`
    either; any other character stands for itself. -#}
{% macro glob_regex(glob) -%}
    {%- set pattern = namespace(regex='') -%}
    {%- for character in glob -%}
        {%- if character == '*' -%}{%- set pattern.regex = pattern.regex ~ '.*' -%}
        {%- elif character == '?' -%}{%- set pattern.regex = pattern.regex ~ '.' -%}
        {%- elif character == '{' -%}{%- set pattern.regex = pattern.regex ~ '(' -%}
        {%- elif character == '}' -%}{%- set pattern.regex = pattern.regex ~ ')' -%}
        {%- elif character == ',' -%}{%- set pattern.regex = pattern.regex ~ '|' -%}
        {%- elif character.isalnum() or character in '_-' -%}{%- set pattern.regex = pattern.regex ~ character -%}
        {%- else -%}{%- set pattern.regex = pattern.regex ~ '\\' ~ character -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(pattern.regex) }}
{%- endmacro %}
