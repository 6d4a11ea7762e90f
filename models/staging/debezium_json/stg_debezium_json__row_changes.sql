with

row_change_messages as (

    select
        *,
        {{ debezium_json_operation('event_type') }} as operation,
        -- Debezium values carry no key list (the Kafka key holds the key's values only).
        {{ primary_key_columns('cast(array() as array<string>)', 'database_name', 'table_name') }}
            as primary_key_columns
    from {{ ref('base_debezium_json__messages') }}
    where disposition = 'row_change'

),

-- One row per message; an insert's before image and a delete's after image are not kept even
-- where a producer sends one.
row_images as (

    select
        *,
        if(operation = 'INSERT', null, before_image) as row_before_image,
        if(operation = 'DELETE', null, after_image) as row_after_image
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
    {{ primary_key_json('primary_key_columns', 'row_before_image', 'row_after_image') }} as primary_key,
    row_before_image as before_image,
    row_after_image as after_image,
    {{ changed_columns('row_before_image', 'row_after_image') }} as changed_columns,
    cast(null as map <string, string>) as column_types,
    cast(null as map <string, int>) as column_jdbc_types,
    event_at,
    emitted_at,
    source_position,
    message_id,
    0 as row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from row_images
