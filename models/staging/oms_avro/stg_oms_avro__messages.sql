with

records as (

    select
        records.*,
        binary_values.before_images_json,
        binary_values.after_images_json,
        binary_values.geometry_wkt
    from (select * from {{ ref('base_oms_avro__records') }} where {{ loaded_after_this() }}) as records
    left join (select * from {{ ref('base_oms_avro__binary_values') }} where {{ loaded_after_this() }}) as binary_values
        on records.file_path = binary_values.file_path and records.line_number = binary_values.line_number

),

-- The record's union fields unwrapped; a shard set's images are those its bytes spell.
fields as (

    select
        *,
        {{ oms_avro_union_value('message.operation') }} as operation_name,
        {{ oms_avro_union_value('message.fields') }} as fields,
        coalesce({{ oms_avro_union_value('message.pkIndexes') }}, array()) as pk_indexes,
        coalesce({{ oms_avro_union_value('message.ukIndexes') }}, array()) as uk_indexes,
        nullif({{ oms_avro_union_value('message.sql') }}, '') as sql_text,
        if(
            before_images_json is null,
            {{ oms_avro_union_value('message.beforeImages') }},
            from_json(before_images_json, '{{ oms_avro_image_type() }}')
        ) as before_images,
        if(
            after_images_json is null,
            {{ oms_avro_union_value('message.afterImages') }},
            from_json(after_images_json, '{{ oms_avro_image_type() }}')
        ) as after_images
    from records

),

decoded as (

    select
        *,
        transform(fields, field -> field.name) as field_names,
        coalesce(
            size(array_compact(transform(fields, field -> field.name))) = size(fields)
            and size(array_distinct(transform(fields, field -> field.name))) = size(fields),
            false
        ) as fields_valid,
        transform(before_images, column_value -> {{ oms_avro_column_value('column_value', 'geometry_wkt') }}) as before_values,
        transform(after_images, column_value -> {{ oms_avro_column_value('column_value', 'geometry_wkt') }}) as after_values
    from fields

),

spelled as (

    select
        *,
        -- The shards merged into their set's shard 0, and repeated shards, carry nothing of their own.
        if(shard_reason in ('shard_merged', 'duplicate_shard'), 'control', {{ oms_avro_event_kind('operation_name') }})
            as event_kind,
        coalesce(shard_reason, 'control_event') as skip_reason,
        operation_name as source_operation,
        if(operation_name = 'DDL', {{ ddl_kind_from_sql('sql_text') }}, operation_name) as operation,
        nullif({{ oms_avro_union_value('message.schemaName') }}, '') as database_name,
        nullif({{ oms_avro_union_value('message.tableName') }}, '') as table_name,
        -- `timestamp` is epoch seconds (004); OMS sends no emit time.
        if({{ oms_avro_union_value('message.timestamp') }} > 0, timestamp_seconds({{ oms_avro_union_value('message.timestamp') }}), null)
            as event_at,
        cast(null as timestamp) as emitted_at,
        {{ oms_avro_union_value('message.position') }} as source_position,
        cast(message.id as string) as message_id,
        -- The primary key, else the first unique key.
        coalesce(
            nullif({{ oms_avro_key_columns('pk_indexes', 'fields') }}, array()),
            {{ oms_avro_key_columns('get(uk_indexes, 0)', 'fields') }}
        ) as key_columns,
        array(named_struct(
            'before_image', {{ oms_avro_image('field_names', 'fields_valid', 'before_values') }},
            'after_image', {{ oms_avro_image('field_names', 'fields_valid', 'after_values') }}
        )) as row_images,
        false as before_images_are_partial,
        -- OMS DataType names as MySQL type names, from the seed.
        if(
            fields_valid and size(coalesce(after_images, before_images)) = size(fields),
            transform_values(
                map_from_arrays(field_names, transform(coalesce(after_images, before_images), column_value -> column_value.type_info)),
                (column_name, data_type) -> coalesce(try_element_at(type_names, data_type), data_type)
            ),
            null
        ) as column_types,
        cast(null as map<string, int>) as column_jdbc_types,
        cast(null as {{ table_changes_schema() }}) as table_change,
        case
            when has_unknown_union_branch then 'unknown_union_branch'
            when shard_reason = 'incomplete_shards' then shard_reason
            when
                (before_images_json is not null and before_images is null)
                or (after_images_json is not null and after_images is null)
                then 'invalid_shard_bytes'
        end as format_rejection_reason,
        case
            when {{ array_size('fields') }} < 1 then 'missing_fields'
            when not fields_valid then 'invalid_fields'
            when
                (before_images is not null and size(before_images) != size(fields))
                or (after_images is not null and size(after_images) != size(fields))
                then 'image_field_count_mismatch'
            when
                {{ oms_avro_key_columns('pk_indexes', 'fields') }} is null
                or exists(uk_indexes, unique_key -> {{ oms_avro_key_columns('unique_key', 'fields') }} is null)
                then 'invalid_key_index'
            else coalesce(
                get(filter(transform(before_values, column_value -> column_value.error), error -> error is not null), 0),
                get(filter(transform(after_values, column_value -> column_value.error), error -> error is not null), 0)
            )
        end as image_rejection_reason
    from decoded
    cross join (
        select map_from_entries(collect_list(struct(data_type, mysql_type))) as type_names
        from {{ ref('oms_data_types') }}
    )

)

{{ staged_messages('oms_avro', 'spelled') }}
