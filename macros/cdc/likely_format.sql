{#- The format whose shape (`<format>_shape`, over the message's top-level keys) a message from
    another format's folder has: a message landed in the wrong folder. NULL when the message has
    its own format's shape, or no format's. -#}
{% macro likely_format(source_format, keys) -%}
    {%- set shapes = {} -%}
    {%- for format in var('cdc_formats') -%}
        {%- set shape = context.get(format ~ '_shape') -%}
        {%- if shape is none -%}
            {{ exceptions.raise_compiler_error('Format ' ~ format ~ ' has no macro ' ~ format ~ '_shape (docs/adding-a-format.md)') }}
        {%- endif -%}
        {%- do shapes.update({format: shape(keys)}) -%}
    {%- endfor %}
    case
        {%- for format, shape in shapes.items() %}
        when {{ source_format }} = '{{ format }}' and {{ shape }} then null
        {%- endfor %}
        {%- for format, shape in shapes.items() %}
        when {{ shape }} then '{{ format }}'
        {%- endfor %}
    end
{%- endmacro %}
