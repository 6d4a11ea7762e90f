select
    {{ change_id('source_format', 'message_json') }} as change_id,
    source_format,
    database_name,
    table_name,
    -- CloudCanal's DDL actions are canal's EventType names (plus DROP, which maps to itself).
    {{ canal_ddl_kind('event_type') }} as ddl_kind,
    event_type as source_operation,
    sql_text,
    transform(
        table_changes.table.columns,
        table_column -> struct(
            table_column.name as column_name,
            table_column.position as ordinal_position,
            table_column.typeExpression as column_type,
            table_column.jdbcType as jdbc_type
        )
    ) as table_columns,
    table_changes.table.primaryKeyColumnNames as primary_key_columns,
    event_at,
    emitted_at,
    cast(null as string) as source_position,
    cast(null as string) as message_id,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from {{ ref('base_cloudcanal_json__messages') }}
where disposition = 'schema_change'
