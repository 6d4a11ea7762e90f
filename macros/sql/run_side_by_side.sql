{#- Runs each of `batches` (lists of statements) in order, the batches side by side on the
    `sparkpy` adapter (its `run_side_by_side`), one after another on others. -#}
{% macro run_side_by_side(batches) -%}
    {%- if adapter.run_side_by_side is defined -%}
        {%- do adapter.run_side_by_side(batches) -%}
    {%- else -%}
        {%- for batch in batches -%}
            {%- for sql in batch %}{% do run_query(sql) %}{% endfor -%}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}
