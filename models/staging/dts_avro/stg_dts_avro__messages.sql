with

-- One record per line, or per record of a binary container file.
messages as (

    {{ json_messages(
        source('dts_avro', 'landed_lines'),
        dts_avro_message_schema(),
        ['sourcePosition', 'safeSourcePosition', 'sourceTxid', 'operation'],
        container_records=ref('base_dts_avro__container_records'),
    ) }}

),

-- Every image value decoded once (type numbers named by the seed).
decoded as (

    select
        messages.*,
        type_names.type_names,
        transform(messages.message.fields.array, field -> field.name) as field_names,
        -- Before and after in one lambda: the decoding is written (and planned) once.
        transform(
            array(messages.message.beforeImages.array, messages.message.afterImages.array),
            image -> {{ dts_avro_values('image') }}
        ) as image_values
    from messages
    cross join
        {{ lookup_map(ref('dts_mysql_data_types'), 'data_type_number', 'mysql_type_name', 'type_names') }} as type_names

)

{% call staged_messages('dts_avro') %}
    select
        *,
        {{ dts_avro_event_kind('message.operation') }} as event_kind,
        'control_event' as skip_reason,
        message.operation as source_operation,
        if(message.operation = 'DDL', {{ ddl_kind_from_sql('sql_text') }}, message.operation) as operation,
        nullif(substring_index(message.objectName.string, '.', 1), '') as database_name,
        {{ dts_avro_table_name('message.objectName.string') }} as table_name,
        {{ epoch_to_timestamp('message.sourceTimestamp') }} as event_at,
        {{ epoch_to_timestamp('try_element_at(message.processTimestamps.array, -1)') }} as emitted_at,
        {{ dts_avro_source_position('message.sourcePosition') }} as source_position,
        nullif(concat_ws('/', nullif(message.sourcePosition, ''), message.id), '') as source_coordinates,
        cast(message.id as string) as message_id,
        nullif(message.sourceTxid, '') as transaction_id,
        {{ dts_avro_key_columns('message.tags') }} as key_columns,
        {{ dts_avro_row_images('message', 'field_names', 'image_values[0]', 'image_values[1]') }} as row_images,
        false as before_images_are_partial,
        false as is_snapshot,
        true as old_images_expected,
        {{ dts_avro_column_types('message.fields.array', 'type_names') }} as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as {{ table_changes_schema() }}) as table_change,
        case when {{ dts_avro_unknown_union_branch('message_json', 'message_variant') }} then 'unknown_union_branch' end
            as format_rejection_reason,
        {{ dts_avro_image_rejection_reason(
            'message', 'field_names', 'image_values[0]', 'image_values[1]'
        ) }} as image_rejection_reason
    from (
        -- A DDL record's statement is its `afterImages` string.
        select
            *,
            if(message.operation = 'DDL', nullif(message.afterImages.string, ''), null) as sql_text
        from decoded
    )
{% endcall %}
