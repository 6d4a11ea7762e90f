{#- What happened to each source row: one event per row change under its key, and one more that
    ends the old key of an UPDATE that moved the row to another key. -#}
{% macro row_events(row_changes) -%}
    select
        source_format,
        database_name,
        table_name,
        primary_key,
        change_id,
        operation,
        after_image,
        before_image_source,
        changed_columns,
        operation = 'DELETE' as ends_row,
        event_at,
        emitted_at,
        source_position,
        landed_at,
        file_path,
        line_number,
        message_index,
        row_index,
        loaded_at
    from {{ row_changes }}
    where primary_key is not null

    union all

    select
        source_format,
        database_name,
        table_name,
        before_primary_key as primary_key,
        change_id,
        operation,
        cast(null as map<string, string>) as after_image,
        before_image_source,
        cast(null as array<string>) as changed_columns,
        true as ends_row,
        event_at,
        emitted_at,
        source_position,
        landed_at,
        file_path,
        line_number,
        message_index,
        row_index,
        loaded_at
    from (
        select
            *,
            {{ primary_key_json('primary_key_columns', 'before_image', 'cast(null as map<string, string>)') }}
                as before_primary_key
        from {{ row_changes }}
    ) as changes
    where operation = 'UPDATE' and before_primary_key != primary_key
{%- endmacro %}
