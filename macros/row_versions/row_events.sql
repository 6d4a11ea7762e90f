{#- What happened to each source row: one event per row change under its key, and one more that
    ends the old key of an UPDATE that moved the row to another key (its `before_primary_key`,
    found once, when the change was loaded). With `renames`
    (`table_renames`), each under its table's incarnations (`through_renames`); without, one
    incarnation per table name. -#}
{% macro row_events(row_changes, renames=none) -%}
    {%- set columns = [
        'source_format', 'database_name', 'table_name', 'primary_key', 'change_id', 'operation', 'after_image',
        'before_image_source', 'changed_columns', 'ends_row', 'event_at', 'emitted_at', 'source_position',
        'landed_at', 'file_path', 'line_number', 'message_index', 'row_index', 'loaded_at',
    ] -%}
    {%- set old_key_ends = {
        'primary_key': 'before_primary_key',
        'after_image': 'cast(null as map<string, string>)',
        'changed_columns': 'cast(null as array<string>)',
        'ends_row': 'true',
    } -%}
    {%- set events -%}
        select {{ qualified_columns(columns, overrides={'ends_row': "operation = 'DELETE'"}) }}
        from {{ row_changes }}
        where primary_key is not null

        union all

        select {{ qualified_columns(columns, overrides=old_key_ends) }}
        from {{ row_changes }}
        where before_primary_key is not null
    {%- endset -%}
    {%- if renames -%}
        {{ through_renames('(' ~ events ~ ')', renames, columns) }}
    {%- else -%}
        select
            *,
            cast(null as struct<renamed_at: timestamp, change_id: string>) as table_incarnation,
            false as is_carried
        from ({{ events }}) as events
    {%- endif %}
{%- endmacro %}
