{#- The order in which changes to one row took effect at the source, whatever order they
    landed in (docs/identity-and-order.md): event time (emit time when unknown), the source
    position where there is one (binlog file, then offset; a TiDB TSO is `tidb:<TSO>`, one file
    part and the TSO as offset), then arrival order: the landed file (its landing time, then its
    name), line, message in the line and row in the message. The change id comes last, for
    copies of one change only. -#}
{% macro row_change_order() -%}
    coalesce(event_at, emitted_at),
    substring_index(source_position, ':', 1),
    try_cast(substring_index(source_position, ':', -1) as bigint),
    landed_at,
    file_path,
    line_number,
    message_index,
    row_index,
    change_id
{%- endmacro %}
