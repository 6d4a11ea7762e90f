with

row_change_messages as (

    select * from {{ ref('int_messages') }}
    where disposition = 'row_change'

),

message_rows as (

    select
        row_change_messages.*,
        message_row.pos as row_index,
        message_row.col as row_image,
        {{ primary_key_columns('key_columns', 'database_name', 'table_name') }} as primary_key_columns
    from row_change_messages
        lateral view posexplode(row_images) message_row as pos, col

),

row_images as (

    select
        *,
        {{ before_image('operation', 'row_image', 'before_images_are_partial') }} as before_image,
        {{ after_image('operation', 'row_image') }} as after_image
    from message_rows

)

select
    {{ change_id('source_format', 'message_json', 'row_index') }} as change_id,
    source_format,
    database_name,
    table_name,
    operation,
    source_operation,
    primary_key_columns,
    {{ primary_key_json('primary_key_columns', 'before_image', 'after_image') }} as primary_key,
    before_image,
    after_image,
    {{ changed_columns('before_image', 'after_image') }} as changed_columns,
    column_types,
    column_jdbc_types,
    event_at,
    emitted_at,
    source_position,
    message_id,
    row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from row_images
