{#- TRUNCATE and DROP end every row of their table that is open at their place in the order of
    its changes (`row_change_order`), at their own event time (emit time when unknown); so does
    a rename (its `ddl_kind` RENAME) under the table's old name. With `renames`
    (`table_renames`), each under its table's incarnations (`through_renames`): the rows a
    rename carries to the new name are ended there too by a TRUNCATE or DROP before it. -#}
{% macro table_resets(schema_changes, renames=none) -%}
    {%- set columns = [
        'change_id', 'source_format', 'database_name', 'table_name', 'ddl_kind', 'event_at', 'emitted_at',
        'source_position', 'landed_at', 'file_path', 'line_number', 'message_index', 'loaded_at',
    ] -%}
    {%- set resets -%}
        select {{ qualified_columns(columns) }}
        from {{ schema_changes }}
        where ddl_kind in ('TRUNCATE', 'DROP') and table_name is not null

        union all

        select {{ qualified_columns(columns, overrides={'table_name': 'previous_table_name', 'ddl_kind': "'RENAME'"}) }}
        from {{ schema_changes }}
        where previous_table_name is not null
    {%- endset -%}
    {%- if renames -%}
        {#- A rename ends the rows under the old name only, not those it carries on. -#}
        {%- set resets -%}
            select *
            from ({{ through_renames('(' ~ resets ~ ')', renames, columns, '0') }}) as named
            where not (ddl_kind = 'RENAME' and is_carried)
        {%- endset -%}
    {%- endif -%}
    select
        *,
        ordered_at as reset_at
    from (
        select
            *,
            coalesce(event_at, emitted_at) as ordered_at,
            {{ source_place('source_format', 'source_position') }} as source_place,
            0 as row_index
        from ({{ resets }}) as resets
    ) as placed
{%- endmacro %}
