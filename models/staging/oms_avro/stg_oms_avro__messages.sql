with

new_records as (

    select * from {{ ref('base_oms_avro__records') }}
    where {{ loaded_after_this() }}

),

new_binary_values as (

    select * from {{ ref('base_oms_avro__binary_values') }}
    where {{ loaded_after_this() }}

),

-- Each record with what base_oms_avro__binary_values decoded of it.
records as (

    select
        new_records.*,
        new_binary_values.before_images_json,
        new_binary_values.after_images_json,
        new_binary_values.geometry_wkt
    from new_records
    left join new_binary_values
        on
            new_records.file_path = new_binary_values.file_path
            and new_records.line_number = new_binary_values.line_number

),

-- The record's union fields unwrapped; a shard set's images are those its bytes spell.
unwrapped as (

    select
        *,
        {{ oms_avro_union_value('message.operation') }} as operation_name,
        {{ oms_avro_union_value('message.fields') }} as fields,
        {{ oms_avro_images('message.beforeImages', 'before_images_json') }} as before_images,
        {{ oms_avro_images('message.afterImages', 'after_images_json') }} as after_images
    from records

),

-- Every value decoded once (type names from the seed).
decoded as (

    select
        unwrapped.*,
        type_names.type_names,
        -- Before and after in one lambda: the decoding is written (and planned) once.
        transform(
            array(unwrapped.before_images, unwrapped.after_images),
            image -> {{ oms_avro_values('image', 'unwrapped.geometry_wkt') }}
        ) as image_values
    from unwrapped
    cross join {{ lookup_map(ref('oms_data_types'), 'data_type', 'mysql_type', 'type_names') }} as type_names

)

{% call staged_messages('oms_avro') %}
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
        {{ oms_avro_event_at('message.timestamp') }} as event_at,
        -- OMS sends no emit time.
        cast(null as timestamp) as emitted_at,
        {{ oms_avro_union_value('message.position') }} as source_position,
        {{ oms_avro_union_value('message.position') }} as source_coordinates,
        cast(message.id as string) as message_id,
        {{ oms_avro_union_value('message.xid') }} as transaction_id,
        {{ oms_avro_key_columns('message', 'fields') }} as key_columns,
        array(named_struct(
            'before_image', {{ oms_avro_image('fields', 'image_values[0]') }},
            'after_image', {{ oms_avro_image('fields', 'image_values[1]') }}
        )) as row_images,
        false as before_images_are_partial,
        false as is_snapshot,
        true as old_images_expected,
        {{ oms_avro_column_types('fields', 'coalesce(after_images, before_images)', 'type_names') }} as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as {{ table_changes_schema() }}) as table_change,
        case
            when has_unknown_union_branch then 'unknown_union_branch'
            when shard_reason = 'incomplete_shards' then shard_reason
            when
                (before_images_json is not null and before_images is null)
                or (after_images_json is not null and after_images is null)
                then 'invalid_shard_bytes'
        end as format_rejection_reason,
        {{ oms_avro_image_rejection_reason(
            'message', 'fields', 'before_images', 'after_images', 'image_values[0]', 'image_values[1]'
        ) }} as image_rejection_reason
    from (
        select
            *,
            nullif({{ oms_avro_union_value('message.sql') }}, '') as sql_text
        from decoded
    )
{% endcall %}
