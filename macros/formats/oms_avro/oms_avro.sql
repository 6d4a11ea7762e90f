{#- The OceanBase OMS AvroRecord (004, src/cdc_lakehouse/avro/schemas/oms_avro.avsc) in Avro's
    JSON encoding: every union field as a one-entry map from branch name to value (004 redacts the
    namespace, so a branch is matched by the last segment of its name); a ColumnValue's value
    union is read whole. -#}
{% macro oms_avro_message_schema() -%}
    {%- set image = 'array<struct<`type_info`: string, `value`: map<string, ' ~ json_value_type() ~ '>>>' -%}
    struct<
        `id`: bigint,
        `version`: map<string, int>,
        `operation`: map<string, string>,
        `xid`: map<string, string>,
        `txind`: map<string, string>,
        `position`: map<string, string>,
        `timestamp`: map<string, bigint>,
        `source`: map<string, struct<`sourceType`: string, `version`: string>>,
        `schemaName`: map<string, string>,
        `tableName`: map<string, string>,
        `fields`: map<string, array<struct<`name`: string, `dataTypeNumber`: int>>>,
        `pkIndexes`: map<string, array<int>>,
        `ukIndexes`: map<string, array<array<int>>>,
        `beforeImages`: map<string, {{ image }}>,
        `afterImages`: map<string, {{ image }}>,
        `sql`: map<string, string>,
        `tags`: map<string, map<string, string>>,
        `total`: int,
        `index`: int,
        `beforeImageBytes`: string,
        `afterImageBytes`: string,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the OMS AvroRecord's own field names (a Debezium
    schema change has a `schemaName` too). -#}
{% macro oms_avro_shape(keys) -%}
    arrays_overlap({{ keys }}, array('txind', 'pkIndexes', 'ukIndexes', 'beforeImageBytes', 'afterImageBytes'))
{%- endmacro %}


{#- The Spark type of an image (an array of ColumnValue), as shard sets' decoded bytes give it. -#}
{% macro oms_avro_image_type() -%}
    array<struct<`type_info`: string, `value`: map<string, {{ json_value_type() }}>>>
{%- endmacro %}


{#- A union's branch name without namespace (NULL for the null branch), and its value. -#}
{% macro oms_avro_branch(union) -%}
    substring_index(get(map_keys({{ union }}), 0), '.', -1)
{%- endmacro %}


{% macro oms_avro_union_value(union) -%}
    get(map_values({{ union }}), 0)
{%- endmacro %}


{#- A record union under a branch its schema lacks: each union field must be the null branch or
    exactly one entry under its branch. -#}
{% macro oms_avro_unknown_union_branch(record) -%}
    {%- set unions = {
        'version': 'int', 'operation': 'Operation', 'xid': 'string', 'txind': 'TxindType',
        'position': 'string', 'timestamp': 'long', 'source': 'Source', 'schemaName': 'string',
        'tableName': 'string', 'fields': 'array', 'pkIndexes': 'array', 'ukIndexes': 'array',
        'beforeImages': 'array', 'afterImages': 'array', 'sql': 'string', 'tags': 'map',
    } -%}
    not (
        {%- for field, expected in unions.items() %}
        {{ 'and ' if not loop.first }}coalesce(
            {{ record }}.{{ field }} is null
            or (size({{ record }}.{{ field }}) = 1 and {{ oms_avro_branch(record ~ '.' ~ field) }} = '{{ expected }}'),
            false
        )
        {%- endfor %}
    )
{%- endmacro %}


{#- The Operation enum by what it carries: BEGIN, COMMIT and HEARTBEAT records carry no rows. -#}
{% macro oms_avro_event_kind(operation) -%}
    case
        when {{ operation }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ operation }} = 'DDL' then 'schema_change'
        when {{ operation }} in ('BEGIN', 'COMMIT', 'HEARTBEAT') then 'control'
    end
{%- endmacro %}


{#- Column names of an index array (`pkIndexes`, an entry of `ukIndexes`), NULL when any index is
    out of range. -#}
{% macro oms_avro_index_columns(indexes, fields) -%}
    if(
        forall({{ indexes }}, i -> i between 0 and size({{ fields }}) - 1),
        transform({{ indexes }}, i -> get({{ fields }}, i).name),
        null
    )
{%- endmacro %}


{#- The record's key: its primary key's columns (`pkIndexes`), else its first unique key's. -#}
{% macro oms_avro_key_columns(record, fields) -%}
    coalesce(
        nullif({{ oms_avro_index_columns('coalesce(' ~ oms_avro_union_value(record ~ '.pkIndexes') ~ ', array())', fields) }}, array()),
        {{ oms_avro_index_columns('get(' ~ oms_avro_union_value(record ~ '.ukIndexes') ~ ', 0)', fields) }}
    )
{%- endmacro %}


{#- `timestamp`, epoch seconds (004; a clock in another unit is read as `epoch_to_timestamp`
    tells it); 0 or less is unknown. -#}
{% macro oms_avro_event_at(timestamp) -%}
    {{ epoch_to_timestamp(oms_avro_union_value(timestamp)) }}
{%- endmacro %}
