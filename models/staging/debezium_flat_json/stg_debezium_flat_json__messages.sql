-- sqlfluff:max_parse_depth:1200
-- (the row decoded by its Kafka Connect schema is one expression nested deeper than the parser's default)
with

-- One Kafka value per line (Debezium does not batch). An empty value or JSON null is a tombstone.
messages as (

    {{ json_messages(
        source('debezium_flat_json', 'landed_lines'),
        debezium_flat_json_message_schema(),
        debezium_flat_json_text_fields(),
        tombstones=true
    ) }}

),

-- A value wrapped by the JSON converter has a `schema` with `fields` (the row's and the
-- metadata's field schemas) and an object `payload`.
wrapped as (

    select
        *,
        schema_fields is not null and payload_fields is not null as is_wrapped
    from (
        select
            *,
            {{ json_value_get(
                'message.schema', '$.fields',
                'array<struct<`field`: string, `type`: string, `name`: string, `parameters`: map<string, string>>>'
            ) }} as schema_fields,
            {{ json_value_get('message.payload', '$', json_image_type()) }} as payload_fields
        from messages
    )

),

-- The metadata, and the value's fields: its row and the metadata.
fields as (

    select
        *,
        nullif(metadata.__op, '') as op,
        {{ debezium_flat_json_value('message_json', 'payload_fields', 'is_wrapped') }} as value_fields
    from (select *, {{ debezium_flat_json_metadata('message', 'is_wrapped') }} as metadata from wrapped)

)

-- The value is the row after an insert, update or snapshot read, and the deleted row (its last
-- state) for a delete; an update's old row is not sent.
{% call staged_messages('debezium_flat_json') %}
    select
        *,
        'tombstone' as skip_reason,
        -- Debezium's row operations (its schema change kinds do not apply: no DDL here).
        if(
            event_kind = 'row_change',
            {{ debezium_json_operation('event_kind', 'source_operation', 'null', 'null') }},
            null
        ) as operation,
        nullif({{ debezium_flat_json_source_field('metadata', 'db') }}, '') as database_name,
        nullif({{ debezium_flat_json_source_field('metadata', 'table') }}, '') as table_name,
        {{ epoch_to_timestamp('metadata.__source_ts_ms') }} as event_at,
        {{ epoch_to_timestamp('metadata.__ts_ms') }} as emitted_at,
        coalesce(
            concat(
                nullif({{ debezium_flat_json_source_field('metadata', 'file') }}, ''),
                ':',
                {{ debezium_flat_json_source_field('metadata', 'pos') }}
            ),
            concat('lsn:', {{ debezium_flat_json_source_field('metadata', 'lsn') }})
        ) as source_position,
        {{ debezium_flat_json_source_coordinates('metadata') }} as source_coordinates,
        cast(null as string) as message_id,
        cast({{ debezium_flat_json_source_field('metadata', 'txId') }} as string) as transaction_id,
        -- The value names no key (the Kafka key holds the key's values only).
        cast(array() as array<string>) as key_columns,
        array(named_struct(
            'before_image', if(source_operation = 'd', row_image, null),
            'after_image', if(source_operation = 'd', null, row_image)
        )) as row_images,
        false as before_images_are_partial,
        false as old_images_expected,
        coalesce(op = 'r', false) as is_snapshot,
        cast(null as map <string, string>) as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as string) as sql_text,
        cast(null as {{ table_changes_schema() }}) as table_change,
        if(metadata._corrupt_record is not null, 'invalid_field_type', null) as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        -- What the value is, and its row: every field but the metadata, decoded by its schema.
        select
            *,
            if(is_tombstone, 'control', {{ debezium_flat_json_event_kind('op', 'metadata.__deleted') }}) as event_kind,
            -- `__op`, or d where only `__deleted` says the row was deleted.
            coalesce(op, if(metadata.__deleted = 'true', 'd', null)) as source_operation,
            {{ debezium_flat_json_row('value_fields', 'if(is_wrapped, schema_fields, null)') }} as row_image
        from fields
    )
{% endcall %}
