with

row_change_messages as (

    select * from {{ ref('base_cloudcanal_json__messages') }}
    where disposition = 'row_change'

),

-- before[i] pairs with data[i]; a DELETE's row is in `data`, or in `before` when `data` is empty.
message_rows as (

    select
        row_change_messages.*,
        message_row.pos as row_index,
        message_row.col as row_image,
        try_element_at(row_change_messages.before_images, message_row.pos + 1) as old_image
    from row_change_messages
        lateral view posexplode(
            if({{ array_size('data_images') }} = 0, before_images, data_images)
        ) message_row as pos, col

),

row_images as (

    select
        *,
        -- `before` is the full old row; overlaying keeps a partial one correct too.
        {{ before_image('event_type', 'row_image', 'old_image') }} as before_image,
        {{ after_image('event_type', 'row_image') }} as after_image,
        {{ primary_key_columns('key_columns', 'database_name', 'table_name') }} as primary_key_columns
    from message_rows

)

select
    {{ change_id('source_format', 'message_json', 'row_index') }} as change_id,
    source_format,
    database_name,
    table_name,
    event_type as operation,
    event_type as source_operation,
    primary_key_columns,
    {{ primary_key_json('primary_key_columns', 'before_image', 'after_image') }} as primary_key,
    before_image,
    after_image,
    {{ changed_columns('before_image', 'after_image') }} as changed_columns,
    column_types,
    column_jdbc_types,
    event_at,
    emitted_at,
    cast(null as string) as source_position,
    cast(null as string) as message_id,
    row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from row_images
