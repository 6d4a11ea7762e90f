{#- (name, expression, description) of a replica's columns: the kept source columns (options
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
        {%- do outputs.append((column['column_name'], replica_value(column['column_name'], previous, column['spark_type']),
            (column['spark_type'] ~ ' from the source type ' ~ (column['source_type'] or 'unknown')
            ~ (('; before a rename: ' ~ previous | join(', ')) if previous else '')
            ~ ('; dropped at the source: each row keeps the value it last had' if column['is_dropped'] else ''))[:250])) -%}
    {%- endfor -%}
    {%- set typed = kept | rejectattr('spark_type', 'equalto', 'string') | list -%}
    {%- do outputs.append(('_overflow', replica_overflow(typed), 'The source text of each value that does not fit its column\'s type, by column name; empty when all fit.')) -%}
    {%- do outputs.extend(replica_system_columns(options)) -%}
    {{ return(outputs) }}
{%- endmacro %}


{#- A replica's query over its `outputs`. -#}
{% macro replica_select(outputs, database_name, table_name, options) -%}
    select
        {%- for name, expression, description in outputs %}
        {{ expression }} as {{ quoted_identifier(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ replica_versions(database_name, table_name, options) }}
{%- endmacro %}


{#- `create or replace view` of a replica, each column described. -#}
{% macro replica_view_ddl(relation, database_name, table_name, outputs, select_sql, options) -%}
    create or replace view {{ relation }} (
        {%- for name, expression, description in outputs %}
        {{ quoted_identifier(name) }} comment {{ string_literal(description) }}{{ ',' if not loop.last }}
        {%- endfor %}
    )
    comment {{ string_literal('The ' ~ ('history (SCD type 2)' if options.get('scd_type') == 2 else 'current rows') ~ ' of the source table ' ~ database_name ~ '.' ~ table_name ~ ', typed.') }}
    as {{ select_sql }}
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
    {%- if spark_type == 'string' -%}
        {{ replica_text(name, previous_names) }}
    {%- else -%}
        try_cast({{ replica_text(name, previous_names) }} as {{ spark_type }})
    {%- endif -%}
{%- endmacro %}


{#- `_overflow`: column name to source text for each typed column whose text is not null but
    does not cast to its type; empty when all fit. -#}
{% macro replica_overflow(typed_columns) -%}
    {%- if typed_columns -%}
        map_filter(map(
            {%- for column in typed_columns %}
            {%- set text = replica_text(column['column_name'], fromjson(column['previous_names'])) %}
            {{ string_literal(column['column_name']) }},
            case when {{ text }} is not null and try_cast({{ text }} as {{ column['spark_type'] }}) is null then {{ text }} end{{ ',' if not loop.last }}
            {%- endfor %}
        ), (column_name, text) -> text is not null)
    {%- else -%}
        cast(map() as map<string,string>)
    {%- endif -%}
{%- endmacro %}


{#- (name, expression, description) of the columns a replica adds to the source's. -#}
{% macro replica_system_columns(options) -%}
    {%- set columns = [('_primary_key', 'primary_key', 'The row\'s primary key: JSON of its key columns\' source text.')] -%}
    {%- if options.get('scd_type') == 2 and options.get('column_names') == 'dbt_snapshot' -%}
        {%- do columns.extend([
            ('dbt_scd_id', 'opened_by_change_id', 'The change that opened this version (`fct_row_changes.change_id`).'),
            ('dbt_updated_at', 'valid_from', 'When that change happened at the source.'),
            ('dbt_valid_from', 'valid_from', 'When this version became the row\'s.'),
            ('dbt_valid_to', 'valid_to', 'When a later change, TRUNCATE or DROP ended it; null while current.'),
        ]) -%}
    {%- elif options.get('scd_type') == 2 -%}
        {%- do columns.extend([
            ('_valid_from', 'valid_from', 'When this version became the row\'s (the event time of the change that opened it).'),
            ('_valid_to', 'valid_to', 'When a later change, TRUNCATE or DROP ended it; null while current.'),
            ('_is_current', 'is_current', 'Whether this is the row\'s version now.'),
            ('_opened_by_change_id', 'opened_by_change_id', 'The change that opened this version (`fct_row_changes.change_id`).'),
            ('_opened_by_operation', 'opened_by_operation', 'INSERT or UPDATE.'),
            ('_closed_by_operation', 'closed_by_operation', 'UPDATE, DELETE, TRUNCATE or DROP; null while current.'),
        ]) -%}
    {%- else -%}
        {%- do columns.extend([
            ('_last_change_id', 'opened_by_change_id', 'The change that gave the row its current image (`fct_row_changes.change_id`).'),
            ('_last_operation', 'opened_by_operation', 'INSERT or UPDATE.'),
            ('_last_event_at', 'valid_from', 'When that change happened at the source.'),
        ]) -%}
        {%- if options.get('deletes') == 'soft' -%}
            {%- do columns.extend([
                ('_is_deleted', 'not is_current', 'Whether a DELETE, TRUNCATE or DROP ended the row (its last image is kept).'),
                ('_deleted_at', 'case when not is_current then valid_to end', 'When it was ended; null for a live row.'),
            ]) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return(columns) }}
{%- endmacro %}


{#- The versions a replica shows: every version (SCD type 2), the latest of each row (soft
    deletes) or the current ones. -#}
{% macro replica_versions(database_name, table_name, options) -%}
    (
        select *
        {%- if options.get('scd_type') != 2 and options.get('deletes') == 'soft' %},
            row_number() over (partition by primary_key order by is_current desc, valid_from desc, opened_by_change_id desc) as recency
        {%- endif %}
        from {{ ref('dim_row_versions') }}
        {#- Spark hands a partition filter to the Hive metastore, whose filter language fails on
            some characters (a value with both quotes, among others): names of other characters
            than these are compared as a struct, which is not handed down. #}
        {%- if modules.re.fullmatch('[A-Za-z0-9_.$-]*', database_name ~ table_name) %}
        where database_name = {{ string_literal(database_name) }} and table_name = {{ string_literal(table_name) }}
        {%- else %}
        where struct(database_name, table_name) = struct({{ string_literal(database_name) }}, {{ string_literal(table_name) }})
        {%- endif %}
    ) as versions
    {%- if options.get('scd_type') == 2 %}
    {%- elif options.get('deletes') == 'soft' %}
    where recency = 1
    {%- else %}
    where is_current
    {%- endif %}
{%- endmacro %}


{% macro quoted_identifier(name) -%}
    `{{ name | string | replace('`', '``') }}`
{%- endmacro %}
