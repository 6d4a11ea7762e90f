with

row_change_messages as (

    select
        *,
        {{ primary_key_columns('key_columns', 'database_name', 'table_name') }} as primary_key_columns
    from {{ ref('base_oms_avro__messages') }}
    where disposition = 'row_change'

),

-- One record is one row: the before image of an UPDATE or DELETE, the after image of an
-- INSERT or UPDATE, each full.
row_images as (

    select
        *,
        case when event_type in ('UPDATE', 'DELETE') then before_image end as row_before_image,
        case when event_type in ('INSERT', 'UPDATE') then after_image end as row_after_image
    from row_change_messages

)

select
    {{ change_id('source_format', 'message_json') }} as change_id,
    source_format,
    database_name,
    table_name,
    event_type as operation,
    event_type as source_operation,
    primary_key_columns,
    {{ primary_key_json('primary_key_columns', 'row_before_image', 'row_after_image') }} as primary_key,
    row_before_image as before_image,
    row_after_image as after_image,
    {{ changed_columns('row_before_image', 'row_after_image') }} as changed_columns,
    column_types,
    cast(null as map <string, int>) as column_jdbc_types,
    event_at,
    emitted_at,
    source_position,
    message_id,
    0 as row_index,
    file_path,
    line_number,
    message_index,
    transaction_id,
    transaction_flag,
    unique_key_columns,
    landed_at,
    loaded_at
from row_images
