{{ message_outcomes(ref('base_oms_avro__messages')) }}
