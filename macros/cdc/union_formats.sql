{#- Every format's `stg_<format>__<entity>` model, for each format of var('cdc_formats'), stacked
    by column name; of each, the rows `where` keeps. -#}
{% macro union_formats(entity, columns, where='true') -%}
    {%- for format in var('cdc_formats') %}
    select {{ columns | join(', ') }} from {{ ref('stg_' ~ format ~ '__' ~ entity) }} where {{ where }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
