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


{#- Its message's top-level keys (likely_format): the binlog file and position every message
    carries. -#}
{% macro kafka_river_json_shape(keys) -%}
    array_contains({{ keys }}, 'binlog')
{%- endmacro %}


{#- KafkaRiverCanal's one-letter `event` codes (003) as the shared operations; NULL for any other
    code (codes are lower case, as GSON writes the Java char). -#}
{% macro kafka_river_json_operation(event) -%}
    case {{ event }}
        when 'i' then 'INSERT'
        when 'u' then 'UPDATE'
        when 'd' then 'DELETE'
    end
{%- endmacro %}


{#- `binlog` is "offset@file" (003); the shared position text is "file:offset". NULL when `binlog`
    is not that shape: the position is provenance only, so the row change is still used. -#}
{% macro kafka_river_json_source_position(binlog) -%}
    case
        when {{ binlog }} rlike '^[0-9]+@[^@\\s]+$'
            then regexp_replace({{ binlog }}, '^([0-9]+)@(.+)$', '$2:$1')
    end
{%- endmacro %}


{#- A map of column name (`n`) to `value`, an expression over one element of `columns` named
    `row_column`, for columns whose names are present and distinct (`invalid_row_image` rejects
    other messages): NULL otherwise, as Spark fails on a NULL or repeated map key. An empty name
    is the shared ladder's to judge (empty_column_name). -#}
{% macro kafka_river_json_column_map(columns, value) -%}
    if(
        forall({{ columns }}, row_column -> row_column.n is not null)
        and size(array_distinct(transform({{ columns }}, row_column -> row_column.n))) = size({{ columns }}),
        map_from_entries(transform({{ columns }}, row_column -> struct(row_column.n as key, {{ value }} as value))),
        null
    )
{%- endmacro %}
