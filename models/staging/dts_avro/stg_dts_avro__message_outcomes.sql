{{ message_outcomes(ref('base_dts_avro__messages')) }}
