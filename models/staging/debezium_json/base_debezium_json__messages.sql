{{ config(materialized='incremental', unique_key=['file_path', 'line_number', 'message_index']) }}

{#- The payload's text fields, whose JSON type from_json does not check (see json_object_rejection_reason). -#}
{%- set text_fields = ['op', 'ddl', 'databaseName', 'source.db', 'source.table', 'source.file'] %}
{%- set wrapped_text_fields = [] %}
{%- for field in text_fields %}{% do wrapped_text_fields.append('payload.' ~ field) %}{% endfor %}

with

landed_lines as (

    {{ landed_lines_not_loaded(source('debezium_json', 'landed_lines')) }}

),

-- One Kafka value per line (Debezium does not batch). An empty value or JSON null is a Kafka
-- tombstone (Debezium follows each delete with one for log compaction). A value wrapped by the
-- JSON converter, {"schema": ..., "payload": {...}}, carries its payload inside.
messages as (

    select
        file_path,
        line_number,
        0 as message_index,
        landed_at,
        payload,
        payload as message_json,
        {{ is_blank('payload') }} or trim(payload) = 'null' as is_tombstone,
        coalesce({{ json_field_is_object('payload', 'payload') }}, false) as is_wrapped
    from landed_lines

),

parsed as (

    select
        *,
        from_json({{ json_exact_numbers('message_json') }}, '{{ debezium_json_envelope_schema() }}') as envelope,
        from_json({{ json_exact_numbers('message_json') }}, '{{ debezium_json_payload_schema() }}') as bare_payload
    from messages

),

payloads as (

    select
        *,
        if(is_wrapped, envelope.payload, bare_payload) as message,
        -- Either parse flags ill-typed JSON: the envelope's for a wrapped value, the bare one's otherwise.
        named_struct(
            '_corrupt_record', coalesce(envelope._corrupt_record, bare_payload._corrupt_record)
        ) as parse_result,
        -- The row struct's column fields (`before` and `after` share them); NULL without a schema.
        filter(
            envelope.schema.fields, envelope_field -> envelope_field.field in ('before', 'after')
        ) as row_structs
    from parsed

),

table_changes_parsed as (

    select
        *,
        {{ debezium_json_table_changes('message.tableChanges') }} as table_changes_result,
        case
            when message.op in {{ debezium_json_op_codes('row_change') }} then 'row_change'
            when
                message.op in {{ debezium_json_op_codes('schema_change') }}
                or (message.op is null and (message.ddl is not null or message.tableChanges is not null))
                then 'schema_change'
        end as message_kind,
        coalesce(nullif(message.source.db, ''), nullif(message.databaseName, '')) as database_name
    from payloads

),

checked as (

    select
        *,
        coalesce(
            case
                when is_tombstone then null
                when
                    is_wrapped
                    then {{ json_object_rejection_reason('message_json', 'parse_result', wrapped_text_fields) }}
                else {{ json_object_rejection_reason('message_json', 'parse_result', text_fields) }}
            end,
            case
                when is_tombstone then null
                when table_changes_result._corrupt_record is not null then 'invalid_field_type'
                when message_kind is null and coalesce(message.op, '') = '' then 'missing_event_type'
                when message_kind is null then 'unknown_event_type'
                when database_name is null then 'missing_database'
                -- Every DDL but a truncate event carries its statement.
                when
                    message_kind = 'schema_change'
                    and coalesce(message.ddl, '') = ''
                    and coalesce(message.op, '') != 't'
                    then 'missing_sql'
                when message_kind = 'schema_change' then null
                when coalesce(message.source.table, '') = '' then 'missing_table'
                -- An empty image ({} in 002's insert) is no image.
                when message.op != 'd' and size(coalesce(message.after, map())) = 0 then 'missing_row_image'
                when message.op = 'd' and size(coalesce(message.before, map())) = 0 then 'missing_row_image'
                when message.op = 'u' and size(coalesce(message.before, map())) = 0 then 'missing_old_image'
            end
        ) as rejection_reason
    from table_changes_parsed

)

select
    'debezium_json' as source_format,
    file_path,
    line_number,
    message_index,
    landed_at,
    {{ load_time() }} as loaded_at,
    payload,
    message_json,
    case
        when rejection_reason is not null then 'rejected'
        when is_tombstone then 'skipped'
        else message_kind
    end as disposition,
    coalesce(rejection_reason, if(is_tombstone, 'tombstone', null)) as disposition_reason,
    -- No message id: source.gtid names a transaction, which many row events share.
    cast(null as string) as message_id,
    database_name,
    nullif(message.source.table, '') as table_name,
    message.op as event_type,
    is_wrapped,
    {{ epoch_to_timestamp('message.source.ts_ms') }} as event_at,
    {{ epoch_to_timestamp('message.ts_ms') }} as emitted_at,
    concat(nullif(message.source.file, ''), ':', message.source.pos) as source_position,
    nullif(message.ddl, '') as sql_text,
    case
        when size(message.before) > 0
            then {{ debezium_json_image_as_text('message.before', 'try_element_at(row_structs, 1).fields') }}
    end as before_image,
    case
        when size(message.after) > 0
            then {{ debezium_json_image_as_text('message.after', 'try_element_at(row_structs, 1).fields') }}
    end as after_image,
    try_element_at(table_changes_result.tableChanges, 1) as table_change
from checked
