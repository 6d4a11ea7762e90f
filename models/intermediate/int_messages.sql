-- Every format's staged messages, stacked: from here on, every format looks the same.
{{ union_formats('messages', staged_message_columns()) }}
