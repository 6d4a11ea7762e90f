{#- A Debezium change event value (002 "Debezium Envelope", Debezium's MySQL and PostgreSQL
    connectors) as the Kafka Connect JSON converter writes it: the payload itself, or
    {"schema": ..., "payload": ...}. One schema reads both: the payload's fields at the top, and
    the envelope's `schema` (only the row struct's column fields, whose types and logical types
    say how to decode a value and name its column type) and `payload`.
    `tableChanges` is an array in Debezium and an object in 002, so it is read as JSON text. -#}
{% macro debezium_json_message_schema() -%}
    struct<
        {{ debezium_json_payload_fields() }},
        `schema`: struct<`fields`: array<struct<
            `field`: string,
            `fields`: array<struct<`field`: string, `type`: string, `name`: string, `parameters`: map<string, string>>>
        >>>,
        `payload`: struct<{{ debezium_json_payload_fields() }}>,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): a change event's `op`, or a schema change's `ddl`,
    beside its `source`. -#}
{% macro debezium_json_shape(keys) -%}
    array_contains({{ keys }}, 'source') and arrays_overlap({{ keys }}, array('op', 'ddl'))
{%- endmacro %}


{#- The payload fields the project reads; the rest are ignored. `transaction` is there when the
    connector provides transaction metadata; `source.schema`, `lsn` and `txId` are Postgres's. -#}
{% macro debezium_json_payload_fields() -%}
    `op`: string,
    `ts_ms`: bigint,
    `before`: {{ json_image_type() }},
    `after`: {{ json_image_type() }},
    `source`: struct<
        `connector`: string, `db`: string, `schema`: string, `table`: string, `file`: string, `pos`: bigint,
        `row`: int, `gtid`: string, `lsn`: bigint, `txId`: bigint, `ts_ms`: bigint
    >,
    `transaction`: struct<`id`: string, `total_order`: string>,
    `databaseName`: string,
    `ddl`: string,
    `tableChanges`: string
{%- endmacro %}


{#- The payload's text fields, which must hold strings (json_object_rejection_reason), wrapped or not. -#}
{% macro debezium_json_text_fields() -%}
    {%- set fields = [
        'op', 'ddl', 'databaseName', 'source.connector', 'source.db', 'source.schema', 'source.table', 'source.file'
    ] -%}
    {%- set wrapped = [] -%}
    {%- for field in fields %}{% do wrapped.append('payload.' ~ field) %}{% endfor -%}
    {{ return(fields + wrapped) }}
{%- endmacro %}


{#- The payload of a wrapped value, else the value itself: the `payload` fields of `message`. -#}
{% macro debezium_json_payload(message) -%}
    if(
        {{ message }}.payload is not null,
        {{ message }}.payload,
        struct(
            {{ message }}.op, {{ message }}.ts_ms, {{ message }}.before, {{ message }}.after, {{ message }}.source,
            {{ message }}.transaction, {{ message }}.databaseName, {{ message }}.ddl, {{ message }}.tableChanges
        )
    )
{%- endmacro %}


{#- `tableChanges` JSON text (an array, or 002's single object) as an array of entries, with a
    `_corrupt_record` that is set when it is not an object or array of the expected shape. -#}
{% macro debezium_json_table_changes(table_changes_json) -%}
    from_json(
        concat(
            '{"tableChanges":',
            if({{ json_opening_char(table_changes_json) }} = '{', concat('[', {{ table_changes_json }}, ']'), {{ table_changes_json }}),
            '}'
        ),
        'struct<`tableChanges`: array<{{ table_changes_schema() }}>, `_corrupt_record`: string>'
    )
{%- endmacro %}


{#- Debezium `op` codes by what they carry: c create, u update, d delete, r snapshot read and
    002's i insert are row changes; t truncate and 002's a alter are schema changes, as is a
    schema change topic event, which has no `op` at all but a statement or `tableChanges`, unless
    it names no database and no table: a statement of the server's own (the MySQL and MariaDB
    connectors send their snapshot's `SET character_set_server=...` so) changes no table, as
    Postgres's m (a logical decoding message, pg_logical_emit_message) does not. Nor does a
    table statement sent with no table and an empty `tableChanges`: the connector found its
    schema history already holds it (after a restart it reads again the statements whose
    offsets it had not committed, and sends them so; the first delivery is the change). -#}
{% macro debezium_json_event_kind(payload) -%}
    case
        when {{ payload }}.op in ('c', 'r', 'i', 'u', 'd') then 'row_change'
        when {{ payload }}.op in ('t', 'a') then 'schema_change'
        when {{ payload }}.op = 'm' then 'control'
        when {{ payload }}.op is not null or ({{ payload }}.ddl is null and {{ payload }}.tableChanges is null) then null
        when coalesce(nullif({{ payload }}.databaseName, ''), nullif({{ payload }}.source.db, ''), nullif({{ payload }}.source.table, ''))
            is null then 'control'
        when nullif({{ payload }}.source.table, '') is null and {{ payload }}.tableChanges rlike '^\\s*\\[\\s*\\]\\s*$'
            and {{ ddl_kind_from_sql(payload ~ '.ddl') }} != 'QUERY' then 'control'
        else 'schema_change'
    end
{%- endmacro %}


{#- The key columns: the value names none, its record key's fields do (read from Kafka; the
    converter's {"schema": ..., "payload": {...}} or the bare object). None where there is no
    key (a landed file holds values only) or it is no JSON object. -#}
{% macro debezium_json_key_columns(record_key) -%}
    {%- set wrapped = 'get_json_object(' ~ record_key ~ ", '$.schema') is not null" -%}
    coalesce(
        json_object_keys(if({{ wrapped }}, get_json_object({{ record_key }}, '$.payload'), {{ record_key }})),
        cast(array() as array<string>)
    )
{%- endmacro %}


{#- The shared operation of a row change: c, r and 002's i are INSERT, u UPDATE, d DELETE. A
    schema change's kind: a truncate event is TRUNCATE; a RENAME or index statement is what its
    SQL says (Debezium reports those as an ALTER table change); otherwise the `tableChanges` type
    (CREATE, ALTER, DROP) where there is one, 002's `a` is ALTER, else the statement's own
    leading words. NULL for any other event. -#}
{% macro debezium_json_operation(event_kind, op, table_change_type, sql_text) -%}
    case
        when {{ event_kind }} = 'row_change' then case {{ op }} when 'u' then 'UPDATE' when 'd' then 'DELETE' else 'INSERT' end
        when coalesce({{ event_kind }}, '') != 'schema_change' then null
        when {{ op }} = 't' then 'TRUNCATE'
        when {{ ddl_kind_from_sql(sql_text) }} in ('RENAME', 'CREATE_INDEX', 'DROP_INDEX') then {{ ddl_kind_from_sql(sql_text) }}
        when {{ table_change_type }} in ('CREATE', 'ALTER', 'DROP') then {{ table_change_type }}
        when {{ op }} = 'a' then 'ALTER'
        else {{ ddl_kind_from_sql(sql_text) }}
    end
{%- endmacro %}


{#- Where a change's table is: a MySQL table is in `source.db` (a schema change event's
    `databaseName` where it has none); a Postgres table (`source.connector` postgresql) in
    `source.db`.`source.schema`, so that two schemas' tables of one name stay apart. NULL when
    empty. -#}
{% macro debezium_json_database_name(payload, is_postgres) -%}
    if(
        {{ is_postgres }},
        concat(nullif({{ payload }}.source.db, ''), '.', nullif({{ payload }}.source.schema, '')),
        coalesce(nullif({{ payload }}.source.db, ''), nullif({{ payload }}.databaseName, ''))
    )
{%- endmacro %}


{#- The row struct's column fields from the envelope schema (`before`'s, else `after`'s); NULL
    without a schema. -#}
{% macro debezium_json_row_fields(message) -%}
    try_element_at(filter({{ message }}.schema.fields, row_struct -> row_struct.field in ('before', 'after')), 1).fields
{%- endmacro %}


{#- A `before` or `after` image as column to text, NULL when absent or empty (an empty image,
    as in 002's insert, is no image), values decoded by the envelope's row schema. -#}
{% macro debezium_json_image(image, row_fields) -%}
    case
        when size({{ image }}) > 0 then {{ connect_image_as_text(image, row_fields) }}
    end
{%- endmacro %}


{#- An image without the columns whose value is the connector's placeholder for a value it did
    not send (an unchanged TOASTed Postgres value), so that replicas keep their previous value. -#}
{% macro debezium_json_sent_columns(image) -%}
    map_filter(
        {{ image }},
        (column_name, value) -> value is null or not array_contains({{ debezium_json_unavailable_values() }}, value)
    )
{%- endmacro %}


{#- The forms Debezium gives its `unavailable.value.placeholder` (var
    `debezium_unavailable_value_placeholder`; "hex:<octets>" names bytes) in, by column type:
    its text; base64 of its bytes (a BYTES column read without its schema; with the schema
    they decode to its ISO-8859-1 text); a text array holding it; an integer array of its
    bytes (Java's signed bytes). -#}
{% macro debezium_json_unavailable_values() -%}
    {%- set placeholder = var('debezium_unavailable_value_placeholder') -%}
    {%- if placeholder.startswith('hex:') -%}
        {%- set bytes = 'unhex(' ~ string_literal(placeholder[4:]) ~ ')' -%}
    {%- else -%}
        {%- set bytes = 'encode(' ~ string_literal(placeholder) ~ ", 'UTF-8')" -%}
    {%- endif -%}
    array(
        decode({{ bytes }}, 'UTF-8'),
        decode({{ bytes }}, 'ISO-8859-1'),
        base64({{ bytes }}),
        to_json(array(decode({{ bytes }}, 'UTF-8'))),
        concat('[', array_join(transform({{ byte_values(bytes) }}, byte_value -> if(byte_value > 127, byte_value - 256, byte_value)), ','), ']')
    )
{%- endmacro %}


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

-- The payload of a wrapped value, else the value itself, its first `tableChanges` entry, its
-- row's column fields where it came with its schema (named by the seed), its images as text.
events as (

    select
        *,
        if(is_tombstone, 'control', {{ debezium_json_event_kind('event') }}) as event_kind,
        nullif(event.ddl, '') as sql_text,
        try_element_at(table_changes.tableChanges, 1) as table_change,
        coalesce(event.source.connector = 'postgresql', false) as is_postgres,
        {{ debezium_json_image('event.before', 'row_fields') }} as decoded_before_image,
        {{ debezium_json_image('event.after', 'row_fields') }} as decoded_after_image
    from (
        select
            *,
            {{ debezium_json_table_changes('event.tableChanges') }} as table_changes,
            {{ debezium_json_row_fields('message') }} as row_fields
        from (select *, {{ debezium_json_payload('message') }} as event from typed_messages)
    )

),

-- Only the columns the connector sent (a step of its own: the whole as one expression is nested
-- deeper than sqlfluff's parser reaches).
images as (

    select
        *,
        {{ debezium_json_sent_columns('decoded_before_image') }} as before_image,
        {{ debezium_json_sent_columns('decoded_after_image') }} as after_image
    from events

),

spelled as (

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
    from images

)

{{ staged_messages(format, 'spelled') }}
{% endmacro %}
