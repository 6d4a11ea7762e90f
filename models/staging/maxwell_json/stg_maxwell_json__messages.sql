with

-- One message per line: Maxwell does not batch.
messages as (

    {{ json_messages(
        source('maxwell_json', 'landed_lines'), maxwell_json_message_schema(), ['database', 'table', 'type', 'sql', 'position']
    ) }}

)

{% call staged_messages('maxwell_json') %}
    select
        *,
        'control_event' as skip_reason,
        message.type as source_operation,
        nullif(message.database, '') as database_name,
        -- A rename's `table` is the old name; its `def` names the table as the DDL left it.
        coalesce(nullif(message.def.table, ''), nullif(message.table, '')) as table_name,
        {{ epoch_to_timestamp('message.ts') }} as event_at,
        cast(null as timestamp) as emitted_at,
        nullif(message.position, '') as source_position,
        {{ maxwell_json_source_coordinates('message', 'event_kind') }} as source_coordinates,
        cast(null as string) as message_id,
        cast(message.xid as string) as transaction_id,
        message.primary_key_columns as key_columns,
        array(named_struct(
            'before_image', case message.type when 'update' then old_image when 'delete' then data_image end,
            'after_image', if(message.type in ('insert', 'bootstrap-insert', 'update'), data_image, null)
        )) as row_images,
        true as before_images_are_partial,
        coalesce(message.type = 'bootstrap-insert', false) as is_snapshot,
        true as old_images_expected,
        cast(null as map <string, string>) as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        nullif(message.sql, '') as sql_text,
        cast({{ maxwell_json_table_change('message.def', 'operation') }} as {{ table_changes_schema() }})
            as table_change,
        cast(null as string) as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        -- `data` is the whole row (after an insert or update, before a delete); `old` an update's old
        -- values of its changed columns.
        select
            *,
            {{ maxwell_json_event_kind('message.type') }} as event_kind,
            {{ maxwell_json_operation('message.type', 'message.sql') }} as operation,
            transform_values(message.data, (column_name, value) -> cast(value as string)) as data_image,
            transform_values(message.old, (column_name, value) -> cast(value as string)) as old_image
        from messages
    )
{% endcall %}
