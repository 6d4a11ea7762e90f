-- sqlfluff:max_parse_depth:1200
-- (Debezium's flow, compiled, nests deeper than the parser's default)
{{ debezium_json_staged_messages('debezium_json', source('debezium_json', 'landed_lines')) }}
