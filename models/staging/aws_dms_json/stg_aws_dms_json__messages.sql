with

-- One record per line: DMS publishes each row change and each control record as one message.
messages as (

    {{ json_messages(
        source('aws_dms_json', 'landed_lines'),
        aws_dms_json_message_schema(),
        ['metadata.timestamp', 'metadata.record-type', 'metadata.operation', 'metadata.schema-name',
         'metadata.table-name', 'metadata.commit-timestamp', 'metadata.stream-position']
    ) }}

)

{% call staged_messages('aws_dms_json') %}
    select
        *,
        'control_event' as skip_reason,
        message.metadata.operation as source_operation,
        nullif(message.metadata.`schema-name`, '') as database_name,
        nullif(message.metadata.`table-name`, '') as table_name,
        {{ aws_dms_json_timestamp('message.metadata.`commit-timestamp`') }} as event_at,
        {{ aws_dms_json_timestamp('message.metadata.timestamp') }} as emitted_at,
        -- `stream-position` is the source engine's own text (a Postgres LSN pair, a MySQL binlog
        -- position, an Oracle SCN): no file:offset to order by.
        cast(null as string) as source_position,
        {{ aws_dms_json_source_coordinates('message.metadata') }} as source_coordinates,
        cast(null as string) as message_id,
        cast(message.metadata.`transaction-id` as string) as transaction_id,
        -- A data record names no key columns.
        cast(null as array<string>) as key_columns,
        array(named_struct(
            'before_image', case operation
                when 'UPDATE' then if({{ map_size('before_image') }} > 0, before_image, null)
                when 'DELETE' then data_image
            end,
            'after_image', if(operation in ('INSERT', 'UPDATE'), data_image, null)
        )) as row_images,
        -- A before image holds the columns BeforeImageSettings let through, which says nothing of
        -- the others: without one of them, or any, the before image is unknown.
        false as before_images_are_partial,
        false as old_images_expected,
        coalesce({{ aws_dms_json_operation_name('message.metadata.operation') }} = 'load', false) as is_snapshot,
        cast(null as map <string, string>) as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        cast(null as string) as sql_text,
        cast(
            {{ aws_dms_json_table_change('message.control.`table-def`', 'operation') }} as {{ table_changes_schema() }}
        ) as table_change,
        cast(null as string) as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        -- `data` is the whole row (an insert's or update's new row, a delete's old one); the before
        -- image an update's, which BeforeImageSettings fills with the key columns, the non-LOB columns
        -- or all of them: an empty one holds nothing.
        select
            *,
            {{ aws_dms_json_event_kind('message.metadata') }} as event_kind,
            {{ aws_dms_json_operation('message.metadata.operation') }} as operation,
            transform_values(message.data, (column_name, value) -> cast(value as string)) as data_image,
            transform_values(
                message.`{{ var('aws_dms_before_image_field') }}`, (column_name, value) -> cast(value as string)
            ) as before_image
        from messages
    )
{% endcall %}
