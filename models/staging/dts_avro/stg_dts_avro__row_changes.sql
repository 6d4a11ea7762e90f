with

row_change_messages as (

    select
        *,
        {{ primary_key_columns('key_columns', 'database_name', 'table_name') }} as primary_key_columns
    from {{ ref('base_dts_avro__messages') }}
    where disposition = 'row_change'

)

-- One row per record: DTS sends each changed row as a record of its own.
select
    {{ change_id('source_format', 'message_json') }} as change_id,
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
    -- The MySQL type number as text; int_row_changes_labelled names it (seed dts_mysql_data_types).
    transform_values(column_type_numbers, (column_name, type_number) -> cast(type_number as string)) as column_types,
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
from row_change_messages
