with

landed_copies as (

    select
        *,
        row_number() over (
            partition by change_id order by file_path, line_number, message_index
        ) as landed_copy
    from {{ ref('int_schema_changes_unioned') }}

)

-- An exact redelivery repeats a change_id; the first landed copy wins.
select
    change_id,
    source_format,
    database_name,
    table_name,
    ddl_kind,
    source_operation,
    sql_text,
    table_columns,
    primary_key_columns,
    event_at,
    emitted_at,
    source_position,
    message_id,
    file_path,
    line_number,
    message_index
from landed_copies
where landed_copy = 1
