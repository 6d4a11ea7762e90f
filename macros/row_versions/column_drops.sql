{#- Each DROP COLUMN (`column_ddl`) with the columns `row_change_order` sorts by (event time,
    emit time when unknown): a row's value of the column ends there. With `renames`
    (`table_renames`), under each table incarnation its table's rows reach
    (`through_renames`). -#}
{% macro column_drops(schema_changes, renames=none) -%}
    {%- set columns = [
        'change_id', 'source_format', 'database_name', 'table_name', 'ddl_kind', 'sql_text', 'event_at', 'emitted_at',
        'source_position', 'landed_at', 'file_path', 'line_number', 'message_index', 'loaded_at',
    ] -%}
    {%- set alters -%}
        select {{ qualified_columns(columns) }}
        from {{ schema_changes }}
        where ddl_kind = 'ALTER' and table_name is not null
    {%- endset -%}
    {%- if renames -%}
        {%- set alters = through_renames('(' ~ alters ~ ')', renames, columns, '0') -%}
        {%- do columns.append('table_incarnation') -%}
    {%- endif -%}
    select
        *,
        changed_at as ordered_at,
        {{ source_place('source_format', 'source_position') }} as source_place,
        0 as row_index
    from ({{ column_ddl('(' ~ alters ~ ') as alters', columns) }}) as column_changes
    where change = 'DROP'
{%- endmacro %}
