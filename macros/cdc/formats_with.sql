{#- The formats of var('cdc_formats') whose registry entry sets `flag` (`binary`, `whole_schema`). -#}
{% macro formats_with(flag) -%}
    {%- set formats = [] -%}
    {%- for format, registry in var('cdc_formats').items() if registry.get(flag) -%}
        {%- do formats.append(format) -%}
    {%- endfor -%}
    {{ return(formats) }}
{%- endmacro %}
