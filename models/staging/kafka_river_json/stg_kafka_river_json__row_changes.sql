with

row_change_messages as (

    select * from {{ ref('base_kafka_river_json__messages') }}
    where disposition = 'row_change'

),

-- One row per message: `v` is the row after an insert or update and before a delete; an
-- update's before image is `v` with the updated columns' `origin_val` laid over it.
row_images as (

    select
        *,
        {{ before_image('operation', 'row_image', 'old_image') }} as before_image,
        {{ after_image('operation', 'row_image') }} as after_image,
        {{ primary_key_columns('key_columns', 'database_name', 'table_name') }} as primary_key_columns
    from row_change_messages

)

select
    {{ change_id('source_format', 'message_json') }} as change_id,
    source_format,
    database_name,
    table_name,
    operation,
    event_type as source_operation,
    primary_key_columns,
    {{ primary_key_json('primary_key_columns', 'before_image', 'after_image') }} as primary_key,
    before_image,
    after_image,
    {{ changed_columns('before_image', 'after_image') }} as changed_columns,
    column_types,
    cast(null as map <string, int>) as column_jdbc_types,
    event_at,
    emitted_at,
    source_position,
    cast(null as string) as message_id,
    0 as row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from row_images
