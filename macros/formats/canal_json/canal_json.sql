{#- The canal FlatMessage (000), with 002's `tableChanges`; the 001 platform fills the same fields;
    TiCDC adds `_tidb` (enable-tidb-extension): its commit TSO, and `onlyHandleKey` on a message
    too large to send whole. -#}
{% macro canal_json_message_schema() -%}
    struct<
        `id`: bigint,
        `database`: string,
        `table`: string,
        `pkNames`: array<string>,
        `isDdl`: boolean,
        `type`: string,
        `es`: bigint,
        `ts`: bigint,
        `sql`: string,
        `sqlType`: map<string, int>,
        `mysqlType`: map<string, string>,
        `data`: array<{{ json_image_type() }}>,
        `old`: array<{{ json_image_type() }}>,
        `tableChanges`: {{ table_changes_schema() }},
        `_tidb`: struct<`commitTs`: bigint, `onlyHandleKey`: boolean>,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): a FlatMessage names its `database` beside fields
    no other format has (cloudcanal's `isDdl` comes with `db`). -#}
{% macro canal_json_shape(keys) -%}
    array_contains({{ keys }}, 'database')
        and arrays_overlap({{ keys }}, array('isDdl', 'es', 'pkNames', 'sqlType', 'mysqlType'))
{%- endmacro %}


{#- Canal EventType names (000) by what they carry; TiCDC's TIDB_WATERMARK is control. -#}
{% macro canal_json_event_kind(event_type) -%}
    case
        when {{ event_type }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ event_type }} in ('CREATE', 'ALTER', 'ERASE', 'QUERY', 'TRUNCATE', 'RENAME', 'CINDEX', 'DINDEX')
            then 'schema_change'
        when {{ event_type }} in ('GTID', 'XACOMMIT', 'XAROLLBACK', 'MHEARTBEAT', 'TIDB_WATERMARK') then 'control'
    end
{%- endmacro %}


{#- A TiDB TSO's commit time: its physical part, the bits above its 18 logical ones, in epoch ms
    (TiCDC's `es` is this time too); NULL when it has none. -#}
{% macro canal_json_tso_time(tso) -%}
    if(shiftright({{ tso }}, 18) > 0, timestamp_millis(shiftright({{ tso }}, 18)), null)
{%- endmacro %}


{#- A TiDB TSO as a source position and coordinates: `tidb:<TSO>`, one file part for every TSO and
    the TSO as the offset, so that row_change_order orders TSOs as numbers. NULL without one. -#}
{% macro canal_json_tso_position(tso) -%}
    concat('tidb:', {{ tso }})
{%- endmacro %}


{#- What TiCDC's `_tidb` makes unusable: a commit TSO with no physical time (zero or negative),
    and a row change sent with its handle key columns only (`onlyHandleKey`, TiCDC's handling of
    a message too large to send whole: the row is to be read back from TiDB), except a DELETE,
    which needs only its key. -#}
{% macro canal_json_tidb_rejection_reason(tidb, event_type) -%}
    case
        when shiftright({{ tidb }}.commitTs, 18) <= 0 then 'invalid_commit_ts'
        when {{ tidb }}.onlyHandleKey and {{ event_type }} != 'DELETE' then 'only_handle_key'
    end
{%- endmacro %}
