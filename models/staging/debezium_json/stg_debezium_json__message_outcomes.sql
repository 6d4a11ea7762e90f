{{ message_outcomes(ref('base_debezium_json__messages')) }}
