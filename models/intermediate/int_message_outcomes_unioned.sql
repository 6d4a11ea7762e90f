{{ union_formats('message_outcomes', [
    'source_format', 'file_path', 'line_number', 'message_index', 'disposition',
    'disposition_reason', 'payload', 'landed_at', 'loaded_at',
]) }}
