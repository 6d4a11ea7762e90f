{#- Formats with a staging folder. A new format adds its name here. -#}
{% macro cdc_formats() -%}
    {{ return(['canal_json']) }}
{%- endmacro %}


{#- Every format's `stg_<format>__<entity>` model, stacked by column name. -#}
{% macro union_formats(entity, columns) -%}
    {%- for format in cdc_formats() %}
    select {{ columns | join(', ') }} from {{ ref('stg_' ~ format ~ '__' ~ entity) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
