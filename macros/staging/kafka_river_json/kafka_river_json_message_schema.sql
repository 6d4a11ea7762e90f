{#- The KafkaRiverCanal message (003). `v` and `origin_val` are strings in the document; parsed as
    json_value_type so that a JSON number or boolean there keeps its exact value. -#}
{% macro kafka_river_json_message_schema() -%}
    struct<
        `binlog`: string,
        `time`: bigint,
        `canalTime`: bigint,
        `db`: string,
        `table`: string,
        `event`: string,
        `columns`: array<struct<
            `n`: string,
            `t`: string,
            `v`: {{ json_value_type() }},
            `null`: boolean,
            `updated`: boolean,
            `origin_val`: {{ json_value_type() }}
        >>,
        `keys`: array<string>,
        `_corrupt_record`: string
    >
{%- endmacro %}
