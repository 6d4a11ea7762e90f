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
        -- The statement's kind, read three times, is computed once, bound to a lambda's argument.
        else element_at(transform(array({{ ddl_kind_from_sql(sql_text) }}), ddl_kind -> case
            when ddl_kind in ('RENAME', 'CREATE_INDEX', 'DROP_INDEX') then ddl_kind
            when {{ table_change_type }} in ('CREATE', 'ALTER', 'DROP') then {{ table_change_type }}
            when {{ op }} = 'a' then 'ALTER'
            else ddl_kind
        end), 1)
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
