with

messages as (

    {{ json_messages(
        source('cloudcanal_json', 'landed_lines'),
        cloudcanal_json_message_schema(),
        ['db', 'schema', 'table', 'action', 'entryType', 'sql'],
        batches=true,
    ) }}

)

{% call staged_messages('cloudcanal_json') %}
    select
        *,
        'control_event' as skip_reason,
        message.action as source_operation,
        {{ canal_operation('message.action') }} as operation,
        coalesce(nullif(message.db, ''), nullif(message.schema, '')) as database_name,
        nullif(message.table, '') as table_name,
        {{ epoch_to_timestamp('message.execTs') }} as event_at,
        {{ epoch_to_timestamp('message.sendTs') }} as emitted_at,
        cast(null as string) as source_position,
        cast(null as string) as source_coordinates,
        cast(null as string) as message_id,
        cast(null as string) as transaction_id,
        message.pks as key_columns,
        {{ paired_row_images('message.action', 'data_images', 'before_images') }} as row_images,
        -- `before` is the full old row; overlaying keeps a partial one correct too.
        true as before_images_are_partial,
        false as is_snapshot,
        true as old_images_expected,
        message.dbValType as column_types,
        message.jdbcType as column_jdbc_types,
        nullif(message.sql, '') as sql_text,
        message.tableChanges as table_change,
        -- Rows come in ROWDATA entries (or ones without an entry type); other entries are control.
        case
            when coalesce(event_kind, '') != 'control' and coalesce(message.entryType, '') not in ('', 'ROWDATA')
                then 'unknown_event_type'
        end as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        select
            *,
            {{ cloudcanal_json_event_kind('message.entryType', 'message.action') }} as event_kind,
            {{ json_images_as_text('message.data') }} as data_images,
            {{ json_images_as_text('message.before') }} as before_images
        from messages
    )
{% endcall %}
