{#- Registers the landing sources of every format in var('cdc_formats') over its folder below
    var('landing_root'), subfolders included (Kafka Connect sinks write `partition=N/` folders):
    `landed_lines`, one row per line of the files its `lines` glob matches (all files when
    absent), and where it lands binary Avro containers, `landed_container_files`, one row per
    file its `containers` glob matches; and the listing of every file in the folder, to account
    for those not read. From Kafka (var('landing_source') `kafka`) the same sources read the
    records base_kafka__reads lands (kafka_landing). Defining them takes the metastore about
    sixty statements, so a run defines them only when a landing schema lacks one or holds other
    definitions (another landing root, glob or format; this file changed), and under
    --full-refresh: the digest of the definitions is a property of each landing schema. `dbt
    compile --no-introspect` runs no queries, so it compiles without a warehouse; a command
    without a landing root (`dbt compile`, `dbt docs generate`) defines nothing. -#}
{% macro create_landing_tables() %}
    {%- if execute and flags.INTROSPECT is not false and (var('landing_root') or kafka_landing()) -%}
        {#- Each format's tables (qualified name to DDL), in the order they are made. -#}
        {%- set formats = {} -%}
        {%- if kafka_landing() -%}
            {%- set landing_root = 'Kafka (' ~ var('kafka_bootstrap_servers') ~ ')' -%}
            {%- for format in var('cdc_formats') -%}
                {%- do formats.update({format: kafka_landing_view_definitions(format)}) -%}
            {%- endfor -%}
        {%- else -%}
            {%- set landing_root = absolute_path(var('landing_root')) -%}
            {%- do check_landing_folders(landing_root) -%}
            {%- for format, landing in var('cdc_formats').items() -%}
                {%- set folder = landing_root ~ '/' ~ format -%}
                {%- set lines = landing_source(format, 'landed_lines') -%}
                {%- set tables = landing_table_definitions(lines, folder, landing.lines) -%}
                {%- do tables.update({
                    landing_listing_table(lines): landing_files_table_sql(landing_listing_table(lines), folder, data_source='binaryFile')
                }) -%}
                {%- if landing.containers -%}
                    {%- do tables.update(landing_table_definitions(
                        landing_source(format, 'landed_container_files'), folder, landing.containers, 'binaryFile'
                    )) -%}
                {%- endif -%}
                {%- do formats.update({format: tables}) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- set tables = {} -%}
        {%- for definitions in formats.values() %}{% do tables.update(definitions) %}{% endfor -%}
        {%- set digest = local_md5(tables.values() | join(';')) -%}
        {%- set schemas = [] -%}
        {%- for name in tables if name.split('.')[0] not in schemas -%}
            {%- do schemas.append(name.split('.')[0]) -%}
            {%- do run_query('create schema if not exists ' ~ schemas[-1]) -%}
        {%- endfor -%}
        {%- set redefine = flags.FULL_REFRESH or not landing_tables_are_defined(schemas, tables, digest) -%}
        {#- One batch of statements per format, the formats side by side. -#}
        {%- set batches = [] -%}
        {%- if redefine -%}
            {#- What held a name before may be a table or a view (a landing of files or of Kafka),
                each dropped its way. The landed Kafka records are kept: they are the landing, as
                files are. -#}
            {%- set views = [] -%}
            {%- for schema in schemas -%}
                {%- for row in run_query('show views in ' ~ schema) -%}
                    {%- do views.append((schema ~ '.' ~ row[1]) | lower) -%}
                {%- endfor -%}
            {%- endfor -%}
            {%- for format, definitions in formats.items() -%}
                {%- set batch = [] -%}
                {%- for name in definitions -%}
                    {%- do batch.append(('drop view if exists ' if name | lower in views else 'drop table if exists ') ~ name) -%}
                {%- endfor -%}
                {%- if kafka_landing() -%}
                    {%- do batch.append(kafka_records_table_sql(kafka_records_table(landing_source(format, 'landed_lines')))) -%}
                {%- endif -%}
                {%- do batches.append(batch + definitions.values() | list) -%}
            {%- endfor -%}
            {%- do run_side_by_side(batches) -%}
            {%- for schema in schemas -%}
                {%- do run_query("alter schema " ~ schema ~ " set dbproperties ('cdc_landing_tables' = '" ~ digest ~ "')") -%}
            {%- endfor -%}
        {%- else -%}
            {#- A session that read a table before (dbt invoked again in the same Python process)
                keeps the file listing it made then, until refreshed. -#}
            {%- for definitions in formats.values() -%}
                {%- set batch = [] -%}
                {%- for name, definition in definitions.items() if definition.startswith('create table') -%}
                    {%- do batch.append('refresh table ' ~ name) -%}
                {%- endfor -%}
                {%- do batches.append(batch) -%}
            {%- endfor -%}
            {%- do run_side_by_side(batches) -%}
        {%- endif -%}
        {{- log('Landing tables ' ~ ('defined' if redefine else 'already defined') ~ ' over ' ~ landing_root, info=true) -}}
    {%- endif -%}
    select 1
{% endmacro %}


{#- A landing root that does not exist, or holds none of the formats' folders, stops the run (a
    mistyped path would otherwise build green, and empty); an absent format folder is an empty
    source, said in one line. Checked where the adapter sees the files (the embedded Spark);
    elsewhere Spark reads an absent folder as empty. -#}
{% macro check_landing_folders(landing_root) -%}
    {%- set folders = [] -%}
    {%- for format in var('cdc_formats') %}{% do folders.append(landing_root ~ '/' ~ format) %}{% endfor -%}
    {%- set missing = adapter.missing_paths([landing_root] + folders) if adapter.missing_paths is defined else none -%}
    {%- if missing and landing_root in missing -%}
        {{ exceptions.raise_compiler_error('The landing root ' ~ landing_root ~ ' does not exist (var landing_root).') }}
    {%- elif missing and folders | reject('in', missing) | list == [] -%}
        {{ exceptions.raise_compiler_error('The landing root ' ~ landing_root ~ ' holds none of the formats\' folders ('
            ~ var('cdc_formats') | join(', ') ~ '): is it the folder that holds them?') }}
    {%- elif missing -%}
        {%- do log('No folder under ' ~ landing_root ~ ' for ' ~ missing | map('replace', landing_root ~ '/', '') | join(', ')
            ~ ': empty sources.', info=true) -%}
    {%- endif -%}
{%- endmacro %}


{#- Whether each of the landing schemas carries the digest of the tables' definitions and holds
    every one of the tables (qualified names). -#}
{% macro landing_tables_are_defined(schemas, tables, digest) -%}
    {%- set held = [] -%}
    {%- for schema in schemas -%}
        {%- set properties = run_query('describe schema extended ' ~ schema).rows
            | selectattr(0, 'equalto', 'Properties') | map(attribute=1) | join -%}
        {%- if '(cdc_landing_tables,' ~ digest ~ ')' not in properties -%}
            {{ return(false) }}
        {%- endif -%}
        {%- for row in run_query('show tables in ' ~ schema) -%}
            {%- do held.append((schema ~ '.' ~ row[1]) | lower) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(tables | map('lower') | reject('in', held) | list == []) }}
{%- endmacro %}


{#- The source node a format declares for its landing table `table` (its YAML, under models/staging).
    While dbt parses, the graph is empty and no SQL runs: a node without names. -#}
{% macro landing_source(format, table) -%}
    {%- if not execute -%}
        {{ return({'schema': none, 'identifier': none}) }}
    {%- endif -%}
    {%- for node in graph.sources.values() if node.source_name == format and node.name == table -%}
        {{ return(node) }}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('Format ' ~ format ~ ' declares no source table ' ~ table) }}
{%- endmacro %}


{#- The definitions (qualified name to DDL) of a table reading the folder's files whole (`glob`:
    which ones) and of the landing view over it: one row per line of text files, or per file
    for binary ones. -#}
{% macro landing_table_definitions(landing, folder, glob, data_source='text') -%}
    {%- set files_table = landing_files_table(landing) -%}
    {%- set view = landing.schema ~ '.' ~ landing.identifier -%}
    {{ return({
        files_table: landing_files_table_sql(files_table, folder, glob, data_source),
        view: (landing_lines_view_sql if data_source == 'text' else landing_binary_files_view_sql)(view, files_table),
    }) }}
{%- endmacro %}


{#- The table of whole files under a landing view (a source node or relation). -#}
{% macro landing_files_table(landing) -%}
    {{ return(landing.schema ~ '.' ~ landing.identifier ~ '__files') }}
{%- endmacro %}


{#- The table listing every file of a format's folder (whatever its name; Spark and Hadoop skip
    names starting with `.` or `_`), beside its `landed_lines` source (a source node or relation):
    a binaryFile table whose content is never read when only its path, length and time are. -#}
{% macro landing_listing_table(landing) -%}
    {{ return(landing.schema ~ '.' ~ landing.identifier ~ '__listing') }}
{%- endmacro %}


{#- Files below the folder, in subfolders too, read as they are: a `key=value` folder is a folder,
    not a partition column. A text file that cannot be read to its end (a truncated gzip) is left
    out rather than failing the build; the listing reports it. -#}
{% macro landing_files_table_sql(files_table, folder, glob=none, data_source='text') -%}
    create table {{ files_table }}
    {%- if data_source == 'text' %} (value string){% endif %}
    using {{ data_source }}
    options (
        {%- if glob %}
        pathGlobFilter {{ string_literal(glob) }},
        {%- endif %}
        {%- if data_source == 'text' %}
        wholetext 'true',
        ignoreCorruptFiles 'true',
        {%- endif %}
        recursiveFileLookup 'true',
        path {{ string_literal(folder) }}
    )
{%- endmacro %}


{% macro landing_binary_files_view_sql(view, files_table) -%}
    create or replace view {{ view }} as
    select
        path as file_path,
        content,
        modificationTime as landed_at
    from {{ files_table }}
{%- endmacro %}


{#- Line numbers need the whole file, so the table reads files whole and the view splits them.
    A final line terminator ends the last line; it does not start an empty one (the split's
    last, empty part is left out). A UTF-8 byte order mark is not part of the first line. Both
    are handled on the split parts: a regular expression over the whole file first cost as
    much as the split. A landed file holds values only: no record key. -#}
{% macro landing_lines_view_sql(view, files_table) -%}
    create or replace view {{ view }} as
    select
        files.file_path,
        cast(line.pos + 1 as int) as line_number,
        if(line.pos = 0 and startswith(line.col, '\uFEFF'), substr(line.col, 2), line.col) as payload,
        files.landed_at,
        cast(null as string) as record_key
    from (
        select
            _metadata.file_path as file_path,
            _metadata.file_modification_time as landed_at,
            value,
            split(value, '\\r?\\n') as lines
        from {{ files_table }}
    ) as files
    lateral view posexplode(
        case
            when files.value = '' then array()
            else slice(files.lines, 1, size(files.lines) - if(endswith(files.value, '\n'), 1, 0))
        end
    ) line as pos, col
{%- endmacro %}


{#- Spark resolves a relative table location against the warehouse, so a relative landing root
    is made absolute against the Spark driver's working directory (the repo root locally). -#}
{% macro absolute_path(path) -%}
    {%- set path = path.rstrip('/') -%}
    {%- if path.startswith('/') or ':' in path -%}
        {{ return(path) }}
    {%- endif -%}
    {%- set working_directory = run_query("select reflect('java.lang.System', 'getProperty', 'user.dir')").columns[0].values()[0] -%}
    {{ return(working_directory ~ '/' ~ path) }}
{%- endmacro %}


{#- Per landed file of every format of var('cdc_formats') (and its modification time, landed_at):
    its lines, and per binary container file, its records: what the landing holds, to reconcile
    with (an empty file holds none). Lines are counted from the files by their terminators (and
    a last line without one), not through the line views, so the check does not repeat their
    split and costs one scan; by bytes, as a newline is one byte of UTF-8 and a text keeps its
    byte length (its characters would be counted, twice); from Kafka, by the records of each
    read. -#}
{% macro landed_line_counts() -%}
    {%- for format in var('cdc_formats') %}
    {%- if kafka_landing() %}
    select '{{ format }}' as source_format, file_path, landed_at, count(*) as landed_lines
    from {{ source(format, 'landed_lines') }}
    group by file_path, landed_at
    {%- else %}
    select
        '{{ format }}' as source_format,
        _metadata.file_path as file_path,
        _metadata.file_modification_time as landed_at,
        octet_length(value) - octet_length(replace(value, '\n', '')) + if(endswith(value, '\n'), 0, 1) as landed_lines
    from {{ landing_files_table(source(format, 'landed_lines')) }}
    where value != ''
    {%- endif %}
    {%- if landing_globs(format).containers %}
    union all
    select '{{ format }}' as source_format, file_path, landed_at, count(*) as landed_lines
    from {{ ref('base_' ~ format ~ '__container_records') }}
    group by file_path, landed_at
    {%- endif %}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
