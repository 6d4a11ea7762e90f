{#- The order in which changes to one row took effect at the source, whatever order they
    landed in: event time (emit time when unknown), binlog file and offset, row within the
    message, then the change id so that ties still resolve the same way on every run. -#}
{% macro row_change_order() -%}
    coalesce(event_at, emitted_at),
    substring_index(source_position, ':', 1),
    cast(substring_index(source_position, ':', -1) as bigint),
    row_index,
    change_id
{%- endmacro %}
