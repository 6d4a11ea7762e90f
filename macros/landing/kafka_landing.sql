{#- Whether the landing is Kafka's topics (var('landing_source') `kafka`) rather than files below
    var('landing_root') (`files`). -#}
{% macro kafka_landing() -%}
    {%- set landing_source = var('landing_source') -%}
    {%- if landing_source not in ('files', 'kafka') -%}
        {{ exceptions.raise_compiler_error('Unknown landing_source ' ~ landing_source ~ ': use files or kafka') }}
    {%- endif -%}
    {{ return(landing_source == 'kafka') }}
{%- endmacro %}


{#- A format's landing globs (its var('cdc_formats') entry's `lines` and `containers`): none
    from Kafka, where each record value is one line. -#}
{% macro landing_globs(format) -%}
    {%- set landing = var('cdc_formats')[format] -%}
    {{ return({'lines': none, 'containers': none} if kafka_landing() else {'lines': landing.lines, 'containers': landing.containers}) }}
{%- endmacro %}


{#- The Delta table of the Kafka records landed for a format's `landed_lines` source (a source
    node or relation): base_kafka__reads appends what each run reads (cdc_lakehouse.kafka_landing
    names it so too). -#}
{% macro kafka_records_table(landing) -%}
    {{ return(landing.schema ~ '.' ~ landing.identifier ~ '__records') }}
{%- endmacro %}


{% macro kafka_records_table_sql(records) -%}
    create table if not exists {{ records }} (
        `topic` string,
        `partition` int,
        `offset` bigint,
        `timestamp` timestamp,
        `timestampType` int,
        `key` binary,
        `value` binary,
        `headers` array<struct<`key`: string, `value`: binary>>,
        `landed_at` timestamp,
        `value_text` string,
        `key_text` string
    )
    using delta
{%- endmacro %}


{#- The landed file a run's read of a topic partition is: kafka:<topic>/<partition>/<first offset>. -#}
{% macro kafka_read_file_path(topic, partition, first_offset) -%}
    concat('kafka:', {{ topic }}, '/', {{ partition }}, '/', {{ first_offset }})
{%- endmacro %}


{#- The views of a format's landing from Kafka (qualified name to DDL), as a landing of files
    gives them: what one run read of a topic partition is one landed file (`file_path`
    kafka:<topic>/<partition>/<first offset>, landed when read), its records its lines (the
    line number counts offsets from the first; a tombstone, a null value, is an empty line),
    listed with its size in bytes; its key is the line's `record_key`. An Avro format's values
    and keys are their texts, decoded as they landed (a value that could not be read has none);
    its container files are none. -#}
{% macro kafka_landing_view_definitions(format) -%}
    {%- set lines = landing_source(format, 'landed_lines') -%}
    {%- set view = lines.schema ~ '.' ~ lines.identifier -%}
    {%- set definitions = {
        view: 'create or replace view ' ~ view ~ ' as
            select
                ' ~ kafka_read_file_path('`topic`', '`partition`', 'first_offset') ~ ' as file_path,
                cast(`offset` - first_offset + 1 as int) as line_number,
                ' ~ ("if(`value` is null, \'\', value_text)" if var('cdc_formats')[format].containers
                    else "coalesce(cast(`value` as string), \'\')") ~ ' as payload,
                landed_at,
                coalesce(key_text, cast(`key` as string)) as record_key
            from (
                select *, min(`offset`) over (partition by `topic`, `partition`, landed_at) as first_offset
                from ' ~ kafka_records_table(lines) ~ '
            )',
        landing_listing_table(lines): 'create or replace view ' ~ landing_listing_table(lines) ~ ' as
            select file_path as path, sum(octet_length(payload)) as length, max(landed_at) as modificationTime
            from ' ~ view ~ '
            group by file_path',
    } -%}
    {%- if var('cdc_formats')[format].containers -%}
        {%- set containers = landing_source(format, 'landed_container_files') -%}
        {%- set containers_view = containers.schema ~ '.' ~ containers.identifier -%}
        {%- do definitions.update({containers_view: 'create or replace view ' ~ containers_view ~ ' as
            select cast(null as string) as file_path, cast(null as binary) as content, cast(null as timestamp) as landed_at
            where false'}) -%}
    {%- endif -%}
    {{ return(definitions) }}
{%- endmacro %}

