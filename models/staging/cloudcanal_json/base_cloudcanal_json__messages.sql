{{ config(materialized='incremental', unique_key=['file_path', 'line_number', 'message_index']) }}

with

landed_lines as (

    {{ landed_lines_not_loaded(source('cloudcanal_json', 'landed_lines')) }}

),

messages as (

    {{ split_json_batches('landed_lines') }}

),

parsed as (

    select
        *,
        from_json({{ json_exact_numbers('message_json') }}, '{{ cloudcanal_json_message_schema() }}') as message
    from messages

),

checked as (

    select
        *,
        coalesce(
            batch_rejection_reason,
            {{ json_object_rejection_reason(
                'message_json', 'message', ['db', 'schema', 'table', 'action', 'entryType', 'sql']
            ) }},
            case
                -- Transaction markers and heartbeats carry no rows, whatever their other fields.
                when message.entryType in {{ cloudcanal_json_control_entry_types() }} then null
                when coalesce(message.entryType, '') not in ('', 'ROWDATA') then 'unknown_event_type'
                when message.action is null or message.action = '' then 'missing_event_type'
                when
                    message.action not in {{ cloudcanal_json_actions('row_change') }}
                    and message.action not in {{ cloudcanal_json_actions('schema_change') }}
                    then 'unknown_event_type'
                when coalesce(nullif(message.db, ''), nullif(message.schema, '')) is null then 'missing_database'
                -- A DDL message carries its statement (a TRUNCATE's kind is known without it).
                when
                    message.action in {{ cloudcanal_json_actions('schema_change') }}
                    and coalesce(message.sql, '') = ''
                    and message.action != 'TRUNCATE'
                    then 'missing_sql'
                when message.action in {{ cloudcanal_json_actions('schema_change') }} then null
                when coalesce(message.table, '') = '' then 'missing_table'
                when
                    {{ array_size('message.data') }} = 0
                    and not (message.action = 'DELETE' and {{ array_size('message.before') }} > 0)
                    then 'missing_row_image'
                when
                    message.action = 'UPDATE'
                    and {{ array_size('message.before') }} != {{ array_size('message.data') }}
                    then 'missing_old_image'
            end
        ) as rejection_reason
    from parsed

)

select
    'cloudcanal_json' as source_format,
    file_path,
    line_number,
    message_index,
    landed_at,
    {{ load_time() }} as loaded_at,
    payload,
    message_json,
    case
        when rejection_reason is not null then 'rejected'
        when message.entryType in {{ cloudcanal_json_control_entry_types() }} then 'skipped'
        when message.action in {{ cloudcanal_json_actions('schema_change') }} then 'schema_change'
        else 'row_change'
    end as disposition,
    coalesce(
        rejection_reason,
        case when message.entryType in {{ cloudcanal_json_control_entry_types() }} then 'control_event' end
    ) as disposition_reason,
    message.bid as batch_id,
    coalesce(nullif(message.db, ''), nullif(message.schema, '')) as database_name,
    nullif(message.schema, '') as schema_name,
    nullif(message.table, '') as table_name,
    message.entryType as entry_type,
    message.action as event_type,
    message.isDdl as is_ddl,
    message.pks as key_columns,
    {{ epoch_to_timestamp('message.execTs') }} as event_at,
    {{ epoch_to_timestamp('message.sendTs') }} as emitted_at,
    nullif(message.sql, '') as sql_text,
    message.dbValType as column_types,
    message.jdbcType as column_jdbc_types,
    {{ json_images_as_text('message.data') }} as data_images,
    {{ json_images_as_text('message.before') }} as before_images,
    message.tableChanges as table_changes
from checked
