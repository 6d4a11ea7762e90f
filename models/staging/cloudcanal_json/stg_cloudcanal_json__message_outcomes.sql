{{ message_outcomes(ref('base_cloudcanal_json__messages')) }}
