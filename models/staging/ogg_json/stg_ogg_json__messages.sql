with

-- One operation per line: the Kafka handler sends each operation as its own message.
messages as (

    {{ json_messages(
        source('ogg_json', 'landed_lines'), ogg_json_message_schema(), ['table', 'op_type', 'op_ts', 'current_ts', 'pos']
    ) }}

)

-- A compressed update's images hold the key and the changed columns only: a column left out is
-- unchanged, so it stays out of the image. An empty `before` (an update without before images)
-- is no image.
{% call staged_messages('ogg_json') %}
    select
        *,
        case
            when operation = 'TRUNCATE' then 'schema_change'
            when operation is not null then 'row_change'
        end as event_kind,
        'control_event' as skip_reason,
        message.op_type as source_operation,
        {{ ogg_json_source_position('message.pos') }} as source_position,
        nullif(message.pos, '') as source_coordinates,
        cast(null as string) as message_id,
        cast(null as string) as transaction_id,
        message.primary_keys as key_columns,
        array(named_struct(
            'before_image', if(
                operation in ('UPDATE', 'DELETE') and {{ map_size('before_image') }} > 0, before_image, null
            ),
            'after_image', if(operation in ('INSERT', 'UPDATE'), after_image, null)
        )) as row_images,
        true as before_images_are_partial,
        -- GoldenGate sends an update's before image only where the source captures it.
        false as old_images_expected,
        -- An initial load comes as ordinary inserts.
        false as is_snapshot,
        cast(null as map <string, string>) as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as string) as sql_text,
        cast(null as {{ table_changes_schema() }}) as table_change,
        case
            when nullif(message.table, '') is not null and (database_name is null or table_name is null)
                then 'unqualified_table'
            when
                (not {{ is_blank('message.op_ts') }} and event_at is null)
                or (not {{ is_blank('message.current_ts') }} and emitted_at is null)
                then 'invalid_timestamp'
        end as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        -- `after` is the row after an insert or update, `before` the row before an update or delete.
        select
            *,
            {{ ogg_json_operation('message.op_type') }} as operation,
            {{ ogg_json_database_name('message.table') }} as database_name,
            {{ ogg_json_table_name('message.table') }} as table_name,
            {{ ogg_json_timestamp('message.op_ts') }} as event_at,
            {{ ogg_json_timestamp('message.current_ts') }} as emitted_at,
            transform_values(message.before, (column_name, value) -> cast(value as string)) as before_image,
            transform_values(message.after, (column_name, value) -> cast(value as string)) as after_image
        from messages
    )
{% endcall %}
