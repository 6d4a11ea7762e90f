{#- The KafkaRiverCanal message (003). `v` and `origin_val` are strings in the document; parsed as
    variant so that a JSON number or boolean there keeps its exact value (see json_image_type). -#}
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
            `v`: variant,
            `null`: boolean,
            `updated`: boolean,
            `origin_val`: variant
        >>,
        `keys`: array<string>,
        `_corrupt_record`: string
    >
{%- endmacro %}
