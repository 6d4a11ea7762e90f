with

landed_copies as (

    select
        *,
        row_number() over (
            partition by change_id order by file_path, line_number, message_index
        ) as landed_copy
    from {{ ref('int_row_changes_labelled') }}

)

-- An exact redelivery repeats a change_id; the first landed copy wins.
select
    change_id,
    source_format,
    database_name,
    table_name,
    operation,
    source_operation,
    canal_event_type,
    primary_key_columns,
    primary_key,
    before_image,
    after_image,
    changed_columns,
    column_types,
    column_jdbc_types,
    column_jdbc_type_names,
    event_at,
    emitted_at,
    source_position,
    message_id,
    row_index,
    file_path,
    line_number,
    message_index
from landed_copies
where landed_copy = 1
