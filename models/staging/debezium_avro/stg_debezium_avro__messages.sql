{{ debezium_json_staged_messages(
    'debezium_avro', source('debezium_avro', 'landed_lines'), ref('base_debezium_avro__container_records')
) }}
