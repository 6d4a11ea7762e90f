select
    {{ change_id('source_format', 'message_json') }} as change_id,
    source_format,
    database_name,
    table_name,
    {{ ddl_kind_from_sql('sql_text') }} as ddl_kind,
    event_type as source_operation,
    sql_text,
    -- A DTS DDL record carries only the statement.
    cast(null as array<struct<column_name: string, ordinal_position: int, column_type: string, jdbc_type: int>>)
        as table_columns,
    cast(null as array<string>) as primary_key_columns,
    event_at,
    emitted_at,
    source_position,
    message_id,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from {{ ref('base_dts_avro__messages') }}
where disposition = 'schema_change'
