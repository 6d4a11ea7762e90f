{#- (name, expression, Spark type, description) of a replica's columns: the kept source columns (options
    `columns`, `except_columns`) typed, `_overflow`, then the system columns. `columns` are
    rows of dim_replica_columns, `options` the table's (docs/replicas.md#options). Names come
    from data: only ever quoted identifiers and string literals. Descriptions are cut to 250
    characters, as a Hive metastore keeps a column comment up to 256. -#}
{% macro replica_outputs(columns, options) -%}
    {%- set kept = [] -%}
    {%- for column in columns -%}
        {%- if column['column_name'] in options.get('columns', [column['column_name']])
            and column['column_name'] not in options.get('except_columns', []) -%}
            {%- do kept.append(column) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set outputs = [] -%}
    {%- for column in kept -%}
        {%- set previous = fromjson(column['previous_names']) -%}
        {%- do outputs.append((column['replica_column_name'], replica_value(column['column_name'], previous, column['spark_type']),
            column['spark_type'], (column['spark_type'] ~ ' from the source type ' ~ (column['source_type'] or 'unknown')
            ~ ((' (source column ' ~ column['column_name'] ~ ')') if column['replica_column_name'] != column['column_name'] else '')
            ~ (('; before a rename: ' ~ previous | join(', ')) if previous else '')
            ~ ('; dropped at the source: values from before the drop only' if column['is_dropped'] else ''))[:250])) -%}
    {%- endfor -%}
    {%- set typed = kept | rejectattr('spark_type', 'equalto', 'string') | list -%}
    {%- do outputs.append(('_overflow', replica_overflow(typed), 'map<string,string>', 'The source text of each value that does not fit its column\'s type, by column name; empty when all fit.')) -%}
    {%- do outputs.extend(replica_system_columns(options)) -%}
    {{ return(outputs) }}
{%- endmacro %}


{#- A replica's query over its `outputs`: its rows, or those of the keys `keys` (a query of
    primary keys) gives. -#}
{% macro replica_select(outputs, database_name, table_name, options, keys=none) -%}
    select
        {%- for name, expression, spark_type, description in outputs %}
        {{ expression }} as {{ quoted_identifier(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ replica_versions(database_name, table_name, options, replica_tracked_values(outputs, options), keys) }}
{%- endmacro %}


{#- The typed values whose change opens a version of an SCD type 2 replica (options
    `track_history_columns`, `track_history_except_columns`), of the source columns among
    `outputs`; none when every change opens one. -#}
{% macro replica_tracked_values(outputs, options) -%}
    {%- set tracked = options.get('track_history_columns') -%}
    {%- set untracked = options.get('track_history_except_columns') -%}
    {%- if tracked is none and untracked is none -%}{{ return(none) }}{%- endif -%}
    {%- if tracked is not none and untracked is not none or options.get('scd_type') != 2 -%}
        {{ exceptions.raise_compiler_error(
            'replica options: track_history_columns or track_history_except_columns, one of them, with scd_type 2'
        ) }}
    {%- endif -%}
    {%- set values = [] -%}
    {%- for name, expression, spark_type, description in outputs -%}
        {%- if name == '_overflow' -%}{% break %}{%- endif -%}
        {%- if (tracked is none or name in tracked) and name not in (untracked or []) -%}
            {%- do values.append(expression) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(values) }}
{%- endmacro %}


{#- A column's text in the image: under its name, else under a name it had before a rename.
    An image keeps every column its row's changes carried, so one written since the rename
    holds both names: the new one wins, even when null. -#}
{% macro replica_text(name, previous_names) -%}
    {%- if previous_names -%}
        case
            {%- for each in [name] + previous_names[:-1] %}
            when map_contains_key(row_image, {{ string_literal(each) }}) then row_image[{{ string_literal(each) }}]
            {%- endfor %}
            else row_image[{{ string_literal(previous_names[-1]) }}]
        end
    {%- else -%}
        row_image[{{ string_literal(name) }}]
    {%- endif -%}
{%- endmacro %}


{% macro replica_value(name, previous_names, spark_type) -%}
    {{ replica_cast(replica_text(name, previous_names), spark_type) }}
{%- endmacro %}


{#- A column's `text` as `spark_type`, NULL where it does not fit. Bytes are staged as their
    ISO-8859-1 text (one character per byte, docs/formats.md): a text with a character past
    U+00FF is no bytes. -#}
{% macro replica_cast(text, spark_type) -%}
    {%- if spark_type == 'string' -%}
        {{ text }}
    {%- elif spark_type == 'binary' -%}
        if({{ text }} rlike '^[\\x{0}-\\x{ff}]*$', encode({{ text }}, 'ISO-8859-1'), null)
    {%- else -%}
        try_cast({{ text }} as {{ spark_type }})
    {%- endif -%}
{%- endmacro %}


{#- `_overflow`: column name to source text for each typed column whose text is not null but
    does not cast to its type; empty when all fit. -#}
{% macro replica_overflow(typed_columns) -%}
    {%- if typed_columns -%}
        map_filter(map(
            {%- for column in typed_columns %}
            {%- set text = replica_text(column['column_name'], fromjson(column['previous_names'])) %}
            {{ string_literal(column['replica_column_name']) }},
            case when {{ text }} is not null and {{ replica_cast(text, column['spark_type']) }} is null then {{ text }} end{{ ',' if not loop.last }}
            {%- endfor %}
        ), (column_name, text) -> text is not null)
    {%- else -%}
        cast(map() as map<string,string>)
    {%- endif -%}
{%- endmacro %}


{#- (name, expression, description) of the columns a replica adds to the source's. -#}
{% macro replica_system_columns(options) -%}
    {%- set columns = [('_primary_key', 'primary_key', 'string', 'The row\'s primary key: JSON of its key columns\' source text.')] -%}
    {%- if options.get('scd_type') == 2 and options.get('column_names') == 'dbt_snapshot' -%}
        {%- do columns.extend([
            ('dbt_scd_id', 'opened_by_change_id', 'string', 'The change that opened this version (`dim_row_versions.opened_by_change_id`).'),
            ('dbt_updated_at', 'valid_from', 'timestamp', 'When that change happened at the source.'),
            ('dbt_valid_from', 'valid_from', 'timestamp', 'When this version became the row\'s.'),
            ('dbt_valid_to', 'valid_to', 'timestamp', 'When a later change, TRUNCATE or DROP ended it; null while current.'),
        ]) -%}
    {%- elif options.get('scd_type') == 2 -%}
        {%- do columns.extend([
            ('_valid_from', 'valid_from', 'timestamp', 'When this version became the row\'s (the event time of the change that opened it).'),
            ('_valid_to', 'valid_to', 'timestamp', 'When a later change, TRUNCATE or DROP ended it; null while current.'),
            ('_is_current', 'is_current', 'boolean', 'Whether this is the row\'s version now.'),
            ('_opened_by_change_id', 'opened_by_change_id', 'string', 'The change that opened this version (`dim_row_versions.opened_by_change_id`).'),
            ('_opened_by_operation', 'opened_by_operation', 'string', 'INSERT, UPDATE or RENAME.'),
            ('_closed_by_operation', 'closed_by_operation', 'string', 'UPDATE, DELETE, TRUNCATE, DROP or RENAME; null while current.'),
        ]) -%}
    {%- else -%}
        {%- do columns.extend([
            ('_last_change_id', 'opened_by_change_id', 'string', 'The change that gave the row its current image (`dim_row_versions.opened_by_change_id`).'),
            ('_last_operation', 'opened_by_operation', 'string', 'INSERT, UPDATE or RENAME.'),
            ('_last_event_at', 'valid_from', 'timestamp', 'When that change happened at the source.'),
        ]) -%}
        {%- if options.get('deletes') == 'soft' -%}
            {%- do columns.extend([
                ('_is_deleted', 'not is_current', 'boolean', 'Whether a DELETE, TRUNCATE or DROP ended the row (its last image is kept).'),
                ('_deleted_at', 'case when not is_current then valid_to end', 'timestamp', 'When it was ended; null for a live row.'),
            ]) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do columns.append(('_loaded_at', 'loaded_at', 'timestamp', 'When the run that last wrote this row loaded its newest change.')) -%}
    {{ return(columns) }}
{%- endmacro %}


{#- The names of the columns any replica adds to its source columns, and those Delta's change
    data feed adds to its rows (a table with one of them cannot have the feed). -#}
{% macro replica_reserved_column_names() -%}
    {%- set names = ['_overflow', '_change_type', '_commit_version', '_commit_timestamp'] -%}
    {%- for options in [{}, {'deletes': 'soft'}, {'scd_type': 2}, {'scd_type': 2, 'column_names': 'dbt_snapshot'}] -%}
        {%- for name, expression, spark_type, description in replica_system_columns(options) -%}
            {%- do names.append(name) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(names | unique | list) }}
{%- endmacro %}


{#- The versions a replica shows: every version (SCD type 2), or the latest of each row (soft
    deletes) or the current ones, each as the row is now (`row_image_now`); with
    `ignore_null_updates`, an update's NULLs keep the values before them; with `tracked`
    values, a version only where they change; of the rows whose keys `keys` (a query) gives, or
    of all. -#}
{% macro replica_versions(database_name, table_name, options, tracked=none, keys=none) -%}
    {%- set versions -%}
        select {{ '*' if options.get('scd_type') == 2 else row_version_columns({'row_image': row_image_now()}) }}
        from {{ ref('dim_row_versions') }}
        where {{ replica_table_filter(database_name, table_name) }}
        {%- if keys is not none %}
            and primary_key in ({{ keys }})
        {%- endif %}
    {%- endset -%}
    {%- if options.get('ignore_null_updates') -%}
        {%- set versions = versions_ignoring_null_updates(versions) -%}
    {%- endif -%}
    {%- if tracked is not none -%}
        {%- set versions = versions_of_tracked_values(versions, tracked) -%}
    {%- endif -%}
    (
        select *
        {%- if options.get('scd_type') != 2 and options.get('deletes') == 'soft' %},
            row_number() over (partition by primary_key order by is_current desc, change_number desc) as recency
        {%- endif %}
        from ({{ versions }})
    ) as versions
    {%- if options.get('scd_type') == 2 %}
    {%- elif options.get('deletes') == 'soft' %}
    where recency = 1
    {%- else %}
    where is_current
    {%- endif %}
{%- endmacro %}


{#- The rows of dim_row_versions of one source table. Spark hands a partition filter to the Hive
    metastore, whose filter language fails on some characters (a value with both quotes, among
    others): names of other characters than these are compared as a struct, not handed down. -#}
{% macro replica_table_filter(database_name, table_name) -%}
    {%- if modules.re.fullmatch('[A-Za-z0-9_.$-]*', database_name ~ table_name) -%}
        database_name = {{ string_literal(database_name) }} and table_name = {{ string_literal(table_name) }}
    {%- else -%}
        struct(database_name, table_name) = struct({{ string_literal(database_name) }}, {{ string_literal(table_name) }})
    {%- endif -%}
{%- endmacro %}


{#- The columns of dim_row_versions, each as itself or as `overrides` gives it: the select list
    of a step that rewrites some. -#}
{% macro row_version_columns(overrides={}) -%}
    {{ qualified_columns([
        'database_name', 'table_name', 'primary_key', 'row_image', 'valid_from', 'valid_to', 'is_current',
        'opened_by_change_id', 'opened_by_operation', 'closed_by_change_id', 'closed_by_operation', 'changed_columns',
        'before_image_source', 'dropped_columns', 'change_number', 'loaded_at',
    ], overrides=overrides) }}
{%- endmacro %}


{#- Whether a version starts its row's life: an INSERT's, or the first after a DELETE, TRUNCATE
    or DROP ended the row. -#}
{% macro starts_row_life() -%}
    (
        opened_by_operation = 'INSERT'
        or lag(closed_by_operation) over (partition by primary_key order by change_number) is distinct from 'UPDATE'
    )
{%- endmacro %}


{#- AUTO CDC's `ignore_null_updates`: within a row's life (from an INSERT, or the first change
    after a DELETE, TRUNCATE or DROP), a column an update sends as NULL keeps its value before. -#}
{% macro versions_ignoring_null_updates(versions) -%}
    {%- set carried_image -%}
        aggregate(
            collect_list(struct(starts_life, row_image)) over (partition by primary_key order by change_number),
            cast(map() as map<string, string>),
            (image, version) -> if(
                version.starts_life,
                version.row_image,
                map_concat(
                    map_filter(image, (column_name, value) -> try_element_at(version.row_image, column_name) is null),
                    map_filter(version.row_image, (column_name, value) -> value is not null)
                )
            )
        )
    {%- endset -%}
    select
        {{ row_version_columns({'row_image': carried_image}) }}
    from (
        select *, {{ starts_row_life() }} as starts_life
        from ({{ versions }})
    )
{%- endmacro %}


{#- AUTO CDC's `track_history_column_list`: consecutive versions of one life whose `tracked`
    values are equal are one version, which shows the last one's image (an untracked change
    updates it in place) from the first one's start to the last one's end. -#}
{% macro versions_of_tracked_values(versions, tracked) -%}
    select *
    from (
        select
            {{ row_version_columns({
                'valid_from': 'first_value(valid_from) over run',
                'opened_by_change_id': 'first_value(opened_by_change_id) over run',
                'opened_by_operation': 'first_value(opened_by_operation) over run',
            }) }},
            change_number = last_value(change_number) over run as ends_run
        from (
            select *, sum(if(opens_version, 1, 0)) over (partition by primary_key order by change_number) as run_number
            from (
                select
                    *,
                    {{ starts_row_life() }} or not (lag(tracked) over row_history <=> tracked) as opens_version
                from (
                    -- A struct keeps each value's type (an array would cast them to one).
                    select *, {{ 'struct(' ~ tracked | join(', ') ~ ')' if tracked else 'true' }} as tracked
                    from ({{ versions }})
                )
                window row_history as (partition by primary_key order by change_number)
            )
        )
        window run as (
            partition by primary_key, run_number order by change_number rows between unbounded preceding and unbounded following
        )
    )
    where ends_run
{%- endmacro %}


{% macro quoted_identifier(name) -%}
    `{{ name | string | replace('`', '``') }}`
{%- endmacro %}
