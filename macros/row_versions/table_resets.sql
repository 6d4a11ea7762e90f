{#- TRUNCATE and DROP end every row of their table that is open at their place in the order of
    its changes (`row_change_order`), at their own event time (emit time when unknown). -#}
{% macro table_resets(schema_changes) -%}
    select
        *,
        ordered_at as reset_at
    from (
        select
            *,
            coalesce(event_at, emitted_at) as ordered_at,
            {{ source_place('source_format', 'source_position') }} as source_place,
            0 as row_index
        from {{ schema_changes }}
        where ddl_kind in ('TRUNCATE', 'DROP') and table_name is not null
    ) as resets
{%- endmacro %}
