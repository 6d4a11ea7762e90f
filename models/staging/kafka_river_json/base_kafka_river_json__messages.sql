{{ config(materialized='incremental', unique_key=['file_path', 'line_number', 'message_index']) }}

with

landed_lines as (

    {{ landed_lines_not_loaded(source('kafka_river_json', 'landed_lines')) }}

),

-- One message per line (003): KafkaRiverCanal does not batch, so a JSON array line is
-- not_a_json_object rather than a batch. An empty line gives no message.
messages as (

    select
        *,
        if({{ is_blank('payload') }}, null, 0) as message_index,
        payload as message_json
    from landed_lines

),

parsed as (

    select
        *,
        from_json({{ json_exact_numbers('message_json') }}, '{{ kafka_river_json_message_schema() }}') as message
    from messages

),

checked as (

    select
        *,
        {{ kafka_river_json_operation('message.event') }} as operation,
        case
            when message_index is null then 'empty_line'
            else coalesce(
                {{ json_object_rejection_reason('message_json', 'message', ['binlog', 'db', 'table', 'event']) }},
                case
                    when message.event is null or message.event = '' then 'missing_event_type'
                    when {{ kafka_river_json_operation('message.event') }} is null then 'unknown_event_type'
                    when coalesce(message.db, '') = '' then 'missing_database'
                    when coalesce(message.table, '') = '' then 'missing_table'
                    when {{ array_size('message.columns') }} = 0 then 'missing_row_image'
                    -- A row needs every column named, each name once.
                    when
                        exists(message.columns, row_column -> coalesce(row_column.n, '') = '')
                        or size(array_distinct(transform(message.columns, row_column -> row_column.n)))
                        != size(message.columns)
                        then 'invalid_row_image'
                    -- An update's old values are those of the columns flagged `updated`.
                    when
                        message.event = 'u'
                        and not exists(message.columns, row_column -> coalesce(row_column.updated, false))
                        then 'missing_old_image'
                end
            )
        end as rejection_reason
    from parsed

)

select
    'kafka_river_json' as source_format,
    file_path,
    line_number,
    message_index,
    landed_at,
    {{ load_time() }} as loaded_at,
    payload,
    message_json,
    if(rejection_reason is null, 'row_change', 'rejected') as disposition,
    rejection_reason as disposition_reason,
    message.binlog,
    {{ kafka_river_json_source_position('message.binlog') }} as source_position,
    nullif(message.db, '') as database_name,
    nullif(message.table, '') as table_name,
    message.event as event_type,
    operation,
    message.keys as key_columns,
    {{ epoch_to_timestamp('message.time') }} as event_at,
    {{ epoch_to_timestamp('message.canalTime') }} as emitted_at,
    -- The maps are built for accepted messages only (their column names are checked above).
    case
        when rejection_reason is null then
            {{ kafka_river_json_column_map('message.columns', 'row_column.t') }}
    end as column_types,
    -- `null` describes the new value; `v` absent or JSON null is NULL too (GSON omits nulls).
    case
        when rejection_reason is null then
            {{ kafka_river_json_column_map(
                'message.columns',
                'if(coalesce(row_column.`null`, false), null, cast(row_column.v as string))'
            ) }}
    end as row_image,
    -- An old NULL has `origin_val` absent or JSON null: both give NULL.
    case
        when rejection_reason is null and operation = 'UPDATE' then
            {{ kafka_river_json_column_map(
                "filter(message.columns, row_column -> coalesce(row_column.updated, false))",
                'cast(row_column.origin_val as string)'
            ) }}
    end as old_image
from checked
