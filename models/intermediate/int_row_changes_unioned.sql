{{ union_formats('row_changes', [
    'change_id', 'source_format', 'database_name', 'table_name', 'operation', 'source_operation',
    'primary_key_columns', 'primary_key', 'before_image', 'after_image', 'changed_columns',
    'column_types', 'column_jdbc_types', 'event_at', 'emitted_at', 'source_position',
    'message_id', 'row_index', 'file_path', 'line_number', 'message_index', 'landed_at', 'loaded_at',
]) }}
