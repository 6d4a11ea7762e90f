{{ debezium_json_staged_messages('debezium_json', source('debezium_json', 'landed_lines')) }}
