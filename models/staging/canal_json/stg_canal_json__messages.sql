with

messages as (

    {{ json_messages(
        source('canal_json', 'landed_lines'), canal_json_message_schema(), ['database', 'table', 'type', 'sql'], batches=true
    ) }}

)

{% call staged_messages('canal_json') %}
    select
        *,
        {{ canal_json_event_kind('message.type') }} as event_kind,
        'control_event' as skip_reason,
        message.type as source_operation,
        {{ canal_operation('message.type') }} as operation,
        nullif(message.database, '') as database_name,
        nullif(message.table, '') as table_name,
        -- TiCDC's commit time where it sends its TSO: the same clock as the TSO that orders changes.
        coalesce(
            {{ canal_json_tso_time('message._tidb.commitTs') }}, {{ epoch_to_timestamp('message.es') }}
        ) as event_at,
        {{ epoch_to_timestamp('message.ts') }} as emitted_at,
        {{ canal_json_tso_position('message._tidb.commitTs') }} as source_position,
        {{ canal_json_tso_position('message._tidb.commitTs') }} as source_coordinates,
        cast(nullif(message.id, 0) as string) as message_id,
        -- A TiDB transaction is named by its commit TSO.
        cast(message._tidb.commitTs as string) as transaction_id,
        message.pkNames as key_columns,
        {{ paired_row_images('message.type', 'data_images', 'old_images') }} as row_images,
        -- `old` holds the changed columns only (000), or the whole old row (001, TiCDC).
        true as before_images_are_partial,
        false as is_snapshot,
        true as old_images_expected,
        message.mysqlType as column_types,
        message.sqlType as column_jdbc_types,
        nullif(message.sql, '') as sql_text,
        message.tableChanges as table_change,
        {{ canal_json_tidb_rejection_reason('message._tidb', 'message.type') }} as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        select
            *,
            {{ json_images_as_text('message.data') }} as data_images,
            {{ json_images_as_text('message.old') }} as old_images
        from messages
    )
{% endcall %}
