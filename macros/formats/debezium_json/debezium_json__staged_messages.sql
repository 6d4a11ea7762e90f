{#- The staged messages of Debezium's change events (the flow of a staged messages model, for
    Debezium's JSON and Avro formats alike): `format`'s landed lines and, for Avro, the records
    of its container files (`container_records`), each a Kafka Connect JSON value. -#}
{% macro debezium_json_staged_messages(format, landing, container_records=none) %}
with

-- One Kafka value per line (Debezium does not batch), or per Avro record as Kafka Connect's JSON.
-- An empty value or JSON null is a tombstone (Debezium follows each delete with one for log
-- compaction).
messages as (

    {{ json_messages(
        landing, debezium_json_message_schema(), debezium_json_text_fields(),
        tombstones=true, container_records=container_records, record_keys=true
    ) }}

),

-- The names of the schema's Kafka Connect types (the seed), beside every message.
typed_messages as (

    select
        messages.*,
        type_names.type_names
    from messages
    cross join {{ lookup_map(ref('debezium_connect_types'), 'connect_type', 'mysql_type', 'type_names') }} as type_names

),

-- The payload of a wrapped value, else the value itself, its `tableChanges`, its row's column
-- fields where it came with its schema (named by the seed), its images as text.
events as (

    select
        *,
        coalesce(event.source.connector = 'postgresql', false) as is_postgres,
        -- Before and after in one lambda: the decoding is written (and planned) once.
        transform(array(event.before, event.after), image -> {{ debezium_json_image('image', 'row_fields') }})
            as decoded_images
    from (
        select
            *,
            {{ debezium_json_table_changes('event.tableChanges') }} as table_changes,
            {{ debezium_json_row_fields('message') }} as row_fields
        from (select *, {{ debezium_json_payload('message') }} as event from typed_messages)
    )

),

-- Only the columns the connector sent (a step of its own: the whole as one expression is nested
-- deeper than sqlfluff's parser reaches). The placeholder's forms are computed once, in a row of
-- their own: in the lambda, Spark would compute them again for every value (a lambda's result is
-- no constant it folds).
images as (

    select
        events.*,
        {{ debezium_json_sent_columns('decoded_images[0]', 'placeholder.unavailable_values') }} as before_image,
        {{ debezium_json_sent_columns('decoded_images[1]', 'placeholder.unavailable_values') }} as after_image
    from events
    cross join (select {{ debezium_json_unavailable_values() }} as unavailable_values) as placeholder

)

{% call staged_messages(format) %}
    select
        *,
        if(is_tombstone, 'tombstone', 'control_event') as skip_reason,
        coalesce(event.op, table_change.type) as source_operation,
        {{ debezium_json_operation('event_kind', 'event.op', 'table_change.type', 'sql_text') }} as operation,
        {{ debezium_json_database_name('event', 'is_postgres') }} as database_name,
        -- A statement on many tables (RENAME TABLE a TO b, c TO d) is an event per table, each
        -- naming them all in `source.table` ("b,d") and its own in `tableChanges` ("shop"."b",
        -- unescaped: the table is what follows the database).
        coalesce(
            nullif(regexp_extract(get_json_object(event.tableChanges, '$[0].id'), '^"[^"]*"\\."(.*)"$', 1), ''),
            nullif(event.source.table, '')
        ) as table_name,
        {{ epoch_to_timestamp('event.source.ts_ms') }} as event_at,
        {{ epoch_to_timestamp('event.ts_ms') }} as emitted_at,
        -- The binlog file and offset (MySQL), else the WAL position (Postgres).
        coalesce(concat(nullif(event.source.file, ''), ':', event.source.pos), concat('lsn:', event.source.lsn))
            as source_position,
        -- The transaction's GTID and the event's place in it, which hold across a failover to
        -- another server; else the binlog event and its row (MySQL), or the WAL position and
        -- transaction (Postgres).
        case
            when nullif(event.source.gtid, '') is not null and event.transaction.total_order is not null
                then concat_ws(':', 'gtid', event.source.gtid, event.transaction.total_order)
            when nullif(event.source.file, '') is not null and event.source.pos is not null
                then concat_ws(':', event.source.file, event.source.pos, coalesce(event.source.row, 0))
            when event.source.lsn is not null then concat_ws(':', 'lsn', event.source.lsn, event.source.txId)
        end as source_coordinates,
        -- No message id: source.gtid names a transaction, which many row events share.
        cast(null as string) as message_id,
        coalesce(nullif(event.transaction.id, ''), nullif(event.source.gtid, ''), cast(event.source.txId as string))
            as transaction_id,
        {{ debezium_json_key_columns('record_key') }} as key_columns,
        array(named_struct(
            'before_image', before_image,
            'after_image', after_image
        )) as row_images,
        false as before_images_are_partial,
        coalesce(event.op = 'r', false) as is_snapshot,
        -- Postgres may send an UPDATE without its old row (REPLICA IDENTITY DEFAULT).
        not is_postgres as old_images_expected,
        {{ connect_column_types('row_fields', 'type_names') }} as column_types,
        cast(null as map <string, int>) as column_jdbc_types,
        if(table_changes._corrupt_record is not null, 'invalid_field_type', null) as format_rejection_reason,
        cast(null as string) as image_rejection_reason
    from (
        select
            *,
            if(is_tombstone, 'control', {{ debezium_json_event_kind('event') }}) as event_kind,
            nullif(event.ddl, '') as sql_text,
            try_element_at(table_changes.tableChanges, 1) as table_change
        from images
    )
{% endcall %}
{% endmacro %}
