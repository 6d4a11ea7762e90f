{#- A format's message outcomes: one row per landed message of its base model, in the shape
    every format's `stg_<format>__message_outcomes` shares. -#}
{% macro message_outcomes(base_messages) -%}
select
    source_format,
    file_path,
    line_number,
    message_index,
    disposition,
    disposition_reason,
    payload,
    landed_at,
    loaded_at
from {{ base_messages }}
{%- endmacro %}
