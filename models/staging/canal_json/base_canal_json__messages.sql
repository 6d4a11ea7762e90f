{{ config(materialized='incremental', unique_key=['file_path', 'line_number', 'message_index']) }}

with

landed_lines as (

    {{ landed_lines_not_loaded(source('canal_json', 'landed_lines')) }}

),

messages as (

    {{ split_json_batches('landed_lines') }}

),

parsed as (

    select
        *,
        from_json({{ json_exact_numbers('message_json') }}, '{{ canal_json_message_schema() }}') as message
    from messages

),

checked as (

    select
        *,
        coalesce(
            batch_rejection_reason,
            {{ json_object_rejection_reason('message_json', 'message', ['database', 'table', 'type', 'sql']) }},
            case
                when message.type is null or message.type = '' then 'missing_event_type'
                when
                    message.type not in {{ canal_json_event_types('row_change') }}
                    and message.type not in {{ canal_json_event_types('schema_change') }}
                    and message.type not in {{ canal_json_event_types('control') }}
                    then 'unknown_event_type'
                when message.type in {{ canal_json_event_types('control') }} then null
                when coalesce(message.database, '') = '' then 'missing_database'
                -- A DDL message carries its statement (a TRUNCATE's kind is known without it).
                when
                    message.type in {{ canal_json_event_types('schema_change') }}
                    and coalesce(message.sql, '') = ''
                    and message.type != 'TRUNCATE'
                    then 'missing_sql'
                when message.type in {{ canal_json_event_types('schema_change') }} then null
                when coalesce(message.table, '') = '' then 'missing_table'
                when
                    {{ array_size('message.data') }} = 0
                    and not (message.type = 'DELETE' and {{ array_size('message.old') }} > 0)
                    then 'missing_row_image'
                when message.type = 'UPDATE' and {{ array_size('message.old') }} != {{ array_size('message.data') }}
                    then 'missing_old_image'
            end
        ) as rejection_reason
    from parsed

)

select
    'canal_json' as source_format,
    file_path,
    line_number,
    message_index,
    landed_at,
    {{ load_time() }} as loaded_at,
    payload,
    message_json,
    case
        when rejection_reason is not null then 'rejected'
        when message.type in {{ canal_json_event_types('control') }} then 'skipped'
        when message.type in {{ canal_json_event_types('schema_change') }} then 'schema_change'
        else 'row_change'
    end as disposition,
    coalesce(
        rejection_reason,
        case when message.type in {{ canal_json_event_types('control') }} then 'control_event' end
    ) as disposition_reason,
    cast(nullif(message.id, 0) as string) as message_id,
    nullif(message.database, '') as database_name,
    nullif(message.table, '') as table_name,
    message.type as event_type,
    message.isDdl as is_ddl,
    message.pkNames as key_columns,
    {{ epoch_to_timestamp('message.es') }} as event_at,
    {{ epoch_to_timestamp('message.ts') }} as emitted_at,
    nullif(message.sql, '') as sql_text,
    message.mysqlType as column_types,
    message.sqlType as column_jdbc_types,
    {{ json_images_as_text('message.data') }} as data_images,
    {{ json_images_as_text('message.old') }} as old_images,
    message.tableChanges as table_changes
from checked
