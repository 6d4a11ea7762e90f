{#- A Debezium change event value after the ExtractNewRecordState transform (Debezium's "New
    Record State Extraction"): the row itself, with the metadata fields `add.fields` put there
    under the prefix `__` (the default `add.fields.prefix`), as the Kafka Connect JSON converter
    writes it: the value itself, or {"schema": ..., "payload": ...}. The message schema reads the
    metadata fields of a bare value (typed, so a wrong JSON type rejects it) and a wrapped value's
    `schema` and `payload` as JSON values of any type (a bare row may have columns so named);
    its columns are every other field, read as an image apart (`debezium_flat_json_value`). -#}
{% macro debezium_flat_json_message_schema() -%}
    struct<
        {{ debezium_flat_json_metadata_schema() }},
        `schema`: {{ json_value_type() }},
        `payload`: {{ json_value_type() }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the metadata fields `add.fields` puts under the
    prefix `__`. -#}
{% macro debezium_flat_json_shape(keys) -%}
    exists({{ keys }}, key -> left(key, 2) = '__')
{%- endmacro %}


{#- The metadata fields the staging reads, name to Spark type. `add.fields` names a field of the
    envelope (`op`, `ts_ms`) or of its `source` block, plainly (`db` gives `__db`) or with its
    block (`source.db` gives `__source_db`), so each source field is read under both names;
    `ts_ms` alone is the envelope's (the send time), the source's is `__source_ts_ms`. The
    delete rewrite adds `__deleted`. -#}
{% macro debezium_flat_json_metadata_fields() -%}
    {%- set fields = {'__op': 'string', '__deleted': 'string', '__ts_ms': 'bigint', '__source_ts_ms': 'bigint'} -%}
    {%- for name, spark_type in debezium_flat_json_source_fields().items() -%}
        {%- do fields.update({'__' ~ name: spark_type, '__source_' ~ name: spark_type}) -%}
    {%- endfor -%}
    {{ return(fields) }}
{%- endmacro %}


{#- The fields of the `source` block the staging reads: MySQL's binlog coordinates, Postgres's
    WAL position and transaction. -#}
{% macro debezium_flat_json_source_fields() -%}
    {{ return({
        'db': 'string', 'table': 'string', 'file': 'string', 'pos': 'bigint', 'row': 'int', 'lsn': 'bigint', 'txId': 'bigint',
    }) }}
{%- endmacro %}


{#- The metadata fields as Spark DDL struct fields. -#}
{% macro debezium_flat_json_metadata_schema() -%}
    {%- for name, spark_type in debezium_flat_json_metadata_fields().items() -%}
        `{{ name }}`: {{ spark_type }}{{ ', ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}


{#- The metadata's text fields, which must hold strings (json_object_rejection_reason), bare or
    wrapped. -#}
{% macro debezium_flat_json_text_fields() -%}
    {%- set fields = [] -%}
    {%- for name, spark_type in debezium_flat_json_metadata_fields().items() if spark_type == 'string' -%}
        {%- do fields.append(name) -%}
    {%- endfor -%}
    {%- set wrapped = [] -%}
    {%- for field in fields %}{% do wrapped.append('payload.' ~ field) %}{% endfor -%}
    {{ return(fields + wrapped) }}
{%- endmacro %}


{#- The metadata of a message: a wrapped value's `payload` parsed for it (with a
    `_corrupt_record` set when a field has the wrong type), else the bare value's own fields. -#}
{% macro debezium_flat_json_metadata(message, is_wrapped) -%}
    if(
        {{ is_wrapped }},
        from_json(
            cast({{ message }}.payload as string),
            'struct<{{ debezium_flat_json_metadata_schema() }}, `_corrupt_record`: string>'
        ),
        struct(
            {%- for name in debezium_flat_json_metadata_fields() %}
            {{ message }}.`{{ name }}`,
            {%- endfor %}
            cast(null as string) as _corrupt_record
        )
    )
{%- endmacro %}


{#- A field of the `source` block as `add.fields` put it, `__source_<name>` or `__<name>`. -#}
{% macro debezium_flat_json_source_field(metadata, name) -%}
    coalesce({{ metadata }}.`__source_{{ name }}`, {{ metadata }}.`__{{ name }}`)
{%- endmacro %}


{#- The value's fields (the row's columns and the metadata) as a JSON image: a wrapped value's
    `payload`, else the whole value, read again as a map (its columns are not known in advance). -#}
{% macro debezium_flat_json_value(message_json, payload_fields, is_wrapped) -%}
    if(
        {{ is_wrapped }},
        {{ payload_fields }},
        from_json({{ json_exact_numbers(message_json) }}, '{{ json_image_type() }}')
    )
{%- endmacro %}


{#- A value's row: its fields but the metadata (every name with the prefix `__`), as column to
    text, values decoded by the logical types of the value's schema fields where it came
    wrapped (`connect_image_as_text`; NULL `schema_fields` leave values as sent). -#}
{% macro debezium_flat_json_row(value_fields, schema_fields) -%}
    {{ connect_image_as_text(
        "map_filter(" ~ value_fields ~ ", (field_name, value) -> not startswith(field_name, '__'))", schema_fields
    ) }}
{%- endmacro %}


{#- A row change by `__op` (c, r, u, d) and `__deleted` (the delete rewrite: "true" for a delete,
    "false" for the rest). `__deleted` "true" alone is a delete; a `__deleted` that contradicts
    `__op`, or is neither "true" nor "false", makes the event unknown. -#}
{% macro debezium_flat_json_event_kind(op, deleted) -%}
    case
        when {{ op }} is null then if({{ deleted }} = 'true', 'row_change', null)
        when {{ op }} not in ('c', 'r', 'u', 'd') then null
        when {{ deleted }} is null or {{ deleted }} = if({{ op }} = 'd', 'true', 'false') then 'row_change'
    end
{%- endmacro %}


{#- The source's coordinates of the event, as debezium_json's: the binlog event and its row
    (MySQL), else the WAL position and transaction (Postgres). -#}
{% macro debezium_flat_json_source_coordinates(metadata) -%}
    {%- set file = 'nullif(' ~ debezium_flat_json_source_field(metadata, 'file') ~ ", '')" -%}
    {%- set pos = debezium_flat_json_source_field(metadata, 'pos') -%}
    {%- set lsn = debezium_flat_json_source_field(metadata, 'lsn') -%}
    case
        when {{ file }} is not null and {{ pos }} is not null
            then concat_ws(':', {{ file }}, {{ pos }}, coalesce({{ debezium_flat_json_source_field(metadata, 'row') }}, 0))
        when {{ lsn }} is not null then concat_ws(':', 'lsn', {{ lsn }}, {{ debezium_flat_json_source_field(metadata, 'txId') }})
    end
{%- endmacro %}
