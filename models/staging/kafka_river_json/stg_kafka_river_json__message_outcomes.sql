{{ message_outcomes(ref('base_kafka_river_json__messages')) }}
