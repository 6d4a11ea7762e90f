{#- A row value's canonical text, decoded by the Kafka Connect / Debezium logical type its field
    schema names (`field_schema` is one entry of the row struct's `fields`), or as bytes where
    its type is BYTES without a logical type. Values of other types, and values that are not
    what their type says, keep their JSON text. -#}
{% macro connect_value_as_text(value, field_schema) -%}
    {%- set value_text = 'cast(' ~ value ~ ' as string)' -%}
    {%- set logical_type = field_schema ~ '.name' -%}
    {%- set is_variable_scale = logical_type ~ " = 'io.debezium.data.VariableScaleDecimal'" -%}
    {#- Durations and instants by logical type: the units of a second their count is in. -#}
    {%- set durations = {
        'io.debezium.time.Time': 1000, 'org.apache.kafka.connect.data.Time': 1000,
        'io.debezium.time.MicroTime': 1000000, 'io.debezium.time.NanoTime': 1000000000,
    } -%}
    {%- set instants = {
        'io.debezium.time.Timestamp': 1000, 'org.apache.kafka.connect.data.Timestamp': 1000,
        'io.debezium.time.MicroTimestamp': 1000000, 'io.debezium.time.NanoTimestamp': 1000000000,
    } -%}
    coalesce(
        case
            {#- One decoding for both decimals (it is long): a VariableScaleDecimal (Postgres NUMERIC
                without a declared scale) is a struct of `scale` and a Decimal's `value`. #}
            when {{ logical_type }} in ('org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal')
                then {{ connect_decimal_text(
                    'if(' ~ is_variable_scale ~ ', ' ~ json_value_get(value, '$.value', 'string') ~ ', ' ~ value_text ~ ')',
                    'if(' ~ is_variable_scale ~ ', ' ~ json_value_get(value, '$.scale', 'int') ~ ', try_cast('
                        ~ field_schema ~ ".parameters['scale'] as int))",
                ) }}
            when {{ logical_type }} in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
                then {{ connect_date_text('try_cast(' ~ value_text ~ ' as int)') }}
            {%- for name, units in durations.items() %}
            when {{ logical_type }} = '{{ name }}' then {{ connect_time_text('try_cast(' ~ value_text ~ ' as bigint)', units) }}
            {%- endfor %}
            {%- for name, units in instants.items() %}
            when {{ logical_type }} = '{{ name }}' then {{ connect_timestamp_text('try_cast(' ~ value_text ~ ' as bigint)', units) }}
            {%- endfor %}
            when {{ logical_type }} = 'io.debezium.time.ZonedTimestamp'
                then {{ connect_zoned_timestamp_text(value_text) }}
            when {{ logical_type }} = 'io.debezium.data.Bits'
                then {{ connect_bits_text(value_text) }}
            when {{ logical_type }} in (
                'io.debezium.data.geometry.Geometry', 'io.debezium.data.geometry.Geography', 'io.debezium.data.geometry.Point'
            ) then {{ connect_geometry_text(value) }}
            when {{ logical_type }} is null and {{ field_schema }}.type = 'bytes' then {{ connect_bytes_text(value_text) }}
        end,
        {{ value_text }}
    )
{%- endmacro %}


{#- Row images (`before`/`after` as map<string, variant>) as column-to-text maps, each value
    decoded by its column's field in the envelope schema (`row_fields`; NULL without a schema). -#}
{% macro connect_image_as_text(image, row_fields) -%}
    transform_values(
        {{ image }},
        (column_name, value) -> coalesce(
            try_element_at(
                transform(
                    filter({{ row_fields }}, field_schema -> field_schema.field = column_name),
                    field_schema -> {{ connect_value_as_text('value', 'field_schema') }}
                ),
                1
            ),
            cast(value as string)
        )
    )
{%- endmacro %}


{#- Each column's source type from its field schema: its logical type's name in `type_names`
    (a map from a seed), else its Kafka Connect type's, else the Kafka Connect type itself; a
    Decimal's `connect.decimal.precision` and `scale` parameters follow as (p,s). NULL without
    a schema, or unless the field names are distinct and named. -#}
{% macro connect_column_types(row_fields, type_names) -%}
    if(
        size(array_distinct(array_compact(transform({{ row_fields }}, field_schema -> field_schema.field))))
        = {{ array_size(row_fields) }},
        map_from_entries(transform(
            {{ row_fields }},
            field_schema -> named_struct(
                'key', field_schema.field,
                'value', concat(
                    coalesce(
                        try_element_at({{ type_names }}, field_schema.name),
                        try_element_at({{ type_names }}, field_schema.type),
                        field_schema.type
                    ),
                    coalesce(concat(
                        '(', field_schema.parameters['connect.decimal.precision'], ',', field_schema.parameters['scale'], ')'
                    ), '')
                )
            )
        )),
        null
    )
{%- endmacro %}
