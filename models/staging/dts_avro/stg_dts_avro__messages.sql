with

landed_records as (

    {{ landed_lines_not_loaded(source('dts_avro', 'landed_lines'), ref('base_dts_avro__container_records')) }}

),

-- One record per line, or per record of a binary container file.
messages as (

    {{ json_messages(
        'landed_records', dts_avro_message_schema(), ['sourcePosition', 'safeSourcePosition', 'sourceTxid', 'operation']
    ) }}

),

decoded as (

    select
        *,
        transform(message.fields.array, field -> field.name) as field_names,
        transform(
            transform(message.beforeImages.array, item -> {{ dts_avro_union_branch('item') }}),
            dts_value -> {{ dts_avro_value_text('dts_value') }}
        ) as before_values,
        transform(
            transform(message.afterImages.array, item -> {{ dts_avro_union_branch('item') }}),
            dts_value -> {{ dts_avro_value_text('dts_value') }}
        ) as after_values,
        -- A DDL record's statement is its `afterImages` string.
        if(message.operation = 'DDL', nullif(message.afterImages.string, ''), null) as sql_text
    from messages

),

spelled as (

    select
        *,
        {{ dts_avro_event_kind('message.operation') }} as event_kind,
        'control_event' as skip_reason,
        message.operation as source_operation,
        if(message.operation = 'DDL', {{ ddl_kind_from_sql('sql_text') }}, message.operation) as operation,
        nullif(substring_index(message.objectName.string, '.', 1), '') as database_name,
        if(
            instr(message.objectName.string, '.') > 0,
            substr(message.objectName.string, instr(message.objectName.string, '.') + 1),
            null
        ) as table_name,
        {{ epoch_to_timestamp('message.sourceTimestamp') }} as event_at,
        {{ epoch_to_timestamp('try_element_at(message.processTimestamps.array, -1)') }} as emitted_at,
        {{ dts_avro_source_position('message.sourcePosition') }} as source_position,
        cast(message.id as string) as message_id,
        try_element_at(
            from_json(try_element_at(message.tags, 'pk_uk_info'), 'map<string, array<string>>'), 'PRIMARY'
        ) as key_columns,
        -- An insert's before image and a delete's after image are not read even where sent.
        array(named_struct(
            'before_image', if(
                message.operation != 'INSERT',
                {{ dts_avro_image('field_names', 'message.beforeImages.array', 'before_values') }},
                null
            ),
            'after_image', if(
                message.operation != 'DELETE',
                {{ dts_avro_image('field_names', 'message.afterImages.array', 'after_values') }},
                null
            )
        )) as row_images,
        false as before_images_are_partial,
        -- MySQL's column type numbers (`dataTypeNumber`) by name, from the seed.
        if(
            size(array_distinct(array_compact(field_names))) = {{ array_size('field_names') }},
            transform_values(
                map_from_arrays(field_names, transform(message.fields.array, field -> cast(field.dataTypeNumber as string))),
                (column_name, type_number) -> coalesce(try_element_at(type_names, type_number), type_number)
            ),
            null
        ) as column_types,
        cast(null as map<string, int>) as column_jdbc_types,
        cast(null as {{ table_changes_schema() }}) as table_change,
        if({{ dts_avro_unknown_union_branch('message_json') }}, 'unknown_union_branch', null) as format_rejection_reason,
        case
            when {{ array_size('field_names') }} = 0 or exists(field_names, field_name -> coalesce(field_name, '') = '')
                then 'missing_columns'
            when size(array_distinct(field_names)) != size(field_names) then 'duplicate_column'
            else coalesce(
                if(
                    message.operation != 'INSERT',
                    {{ dts_avro_image_reason('field_names', 'message.beforeImages.array', 'before_values') }},
                    null
                ),
                if(
                    message.operation != 'DELETE',
                    {{ dts_avro_image_reason('field_names', 'message.afterImages.array', 'after_values') }},
                    null
                )
            )
        end as image_rejection_reason
    from decoded
    cross join (
        select map_from_entries(collect_list(struct(cast(data_type_number as string), mysql_type_name))) as type_names
        from {{ ref('dts_mysql_data_types') }}
    )

)

{{ staged_messages('dts_avro', 'spelled') }}
