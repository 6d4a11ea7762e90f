with

-- One message per line (003): KafkaRiverCanal does not batch, so a JSON array line is
-- not_a_json_object rather than a batch.
messages as (

    {{ json_messages(
        source('kafka_river_json', 'landed_lines'), kafka_river_json_message_schema(), ['binlog', 'db', 'table', 'event']
    ) }}

)

-- `v` is the row after an insert or update and before a delete; an update's old values are the
-- `origin_val` of the columns flagged `updated`. `null` describes the new value; `v` absent or
-- JSON null is NULL too (GSON omits nulls), and so is an absent or null `origin_val`.
{% call staged_messages('kafka_river_json') %}
    select
        *,
        if({{ kafka_river_json_operation('message.event') }} is null, null, 'row_change') as event_kind,
        'control_event' as skip_reason,
        message.event as source_operation,
        {{ kafka_river_json_operation('message.event') }} as operation,
        nullif(message.db, '') as database_name,
        nullif(message.table, '') as table_name,
        {{ epoch_to_timestamp('message.time') }} as event_at,
        {{ epoch_to_timestamp('message.canalTime') }} as emitted_at,
        {{ kafka_river_json_source_position('message.binlog') }} as source_position,
        {{ kafka_river_json_source_position('message.binlog') }} as source_coordinates,
        cast(null as string) as message_id,
        cast(null as string) as transaction_id,
        message.keys as key_columns,
        array(named_struct(
            'before_image', case message.event when 'd' then row_image when 'u' then old_image end,
            'after_image', if(message.event in ('i', 'u'), row_image, null)
        )) as row_images,
        true as before_images_are_partial,
        false as is_snapshot,
        true as old_images_expected,
        {{ kafka_river_json_column_map('message.columns', 'row_column.t') }} as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as string) as sql_text,
        cast(null as {{ table_changes_schema() }}) as table_change,
        cast(null as string) as format_rejection_reason,
        -- A row needs every column named, each name once.
        if(
            {{ array_size('message.columns') }} > 0 and row_image is null, 'invalid_row_image', null
        ) as image_rejection_reason
    from (
        select
            *,
            {{ kafka_river_json_column_map(
                'message.columns', 'if(coalesce(row_column.`null`, false), null, cast(row_column.v as string))'
            ) }} as row_image,
            if(
                exists(message.columns, row_column -> coalesce(row_column.updated, false)),
                {{ kafka_river_json_column_map(
                    'filter(message.columns, row_column -> coalesce(row_column.updated, false))',
                    'cast(row_column.origin_val as string)'
                ) }},
                null
            ) as old_image
        from messages
    )
{% endcall %}
