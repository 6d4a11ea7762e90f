{{ message_outcomes(ref('base_canal_json__messages')) }}
