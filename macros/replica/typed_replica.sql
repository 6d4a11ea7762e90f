{#- A typed replica of one source table: its current rows with one Spark column per source
    column, typed from the column types its messages and DDL carry (the latest wins; a column
    seen with no type is a string). Names come from data, so they are only ever used as quoted
    identifiers and string literals, and types only from `spark_type_of_source_type`. -#}
{% macro typed_replica_sql(database_name, table_name) -%}
    {%- set columns = run_query(replica_columns_sql(database_name, table_name)) if execute else [] -%}
    select
        {%- for column in columns %}
        try_cast(row_image[{{ string_literal(column[0]) }}] as {{ column[1] }}) as {{ quoted_identifier(column[0]) }},
        {%- endfor %}
        primary_key as `_primary_key`,
        last_change_id as `_last_change_id`,
        last_event_at as `_last_event_at`
    from {{ ref('dim_current_rows') }}
    where database_name = {{ string_literal(database_name) }} and table_name = {{ string_literal(table_name) }}
{%- endmacro %}


{#- `dbt run-operation create_typed_replica --args '{database_name: shop, table_name: items}'`
    creates or replaces the view `<schema>.replica__<database>__<table>` (name made safe). -#}
{% macro create_typed_replica(database_name, table_name) %}
    {%- set view_name = 'replica__' ~ safe_name(database_name) ~ '__' ~ safe_name(table_name) -%}
    {%- set view = api.Relation.create(schema=target.schema, identifier=view_name, type='view') -%}
    {%- do run_query('create or replace view ' ~ view ~ ' as ' ~ typed_replica_sql(database_name, table_name)) -%}
    {{ log('Created ' ~ view, info=true) }}
{% endmacro %}


{#- (column name, Spark type) of every column the table has had, in source order where DDL
    gives one, by name otherwise. -#}
{% macro replica_columns_sql(database_name, table_name) -%}
    {%- set this_table -%}
        database_name = {{ string_literal(database_name) }} and table_name = {{ string_literal(table_name) }}
    {%- endset -%}
    with observed as (
        select column_name, column_type, coalesce(event_at, emitted_at) as observed_at, cast(null as int) as ordinal_position
        from {{ ref('fct_row_changes') }} lateral view explode(column_types) as column_name, column_type
        where {{ this_table }}
        union all
        select table_column.column_name, table_column.column_type, coalesce(event_at, emitted_at), table_column.ordinal_position
        from {{ ref('fct_schema_changes') }} lateral view explode(table_columns) as table_column
        where {{ this_table }}
        union all
        select column_name, cast(null as string), cast(null as timestamp), cast(null as int)
        from {{ ref('dim_current_rows') }} lateral view explode(map_keys(row_image)) as column_name
        where {{ this_table }}
    ),
    latest as (
        select
            column_name,
            max_by(column_type, observed_at) as source_type,
            max(ordinal_position) as ordinal_position
        from observed
        group by column_name
    )
    select column_name, {{ spark_type_of_source_type('source_type') }} as spark_type
    from latest
    order by ordinal_position nulls last, column_name
{%- endmacro %}


{#- The Spark type for a MySQL/OceanBase column type such as `decimal(10,2)` or `int(11)
    unsigned`; string for anything not recognised, so a value is never lost. -#}
{% macro spark_type_of_source_type(source_type) -%}
    case
        when lower({{ source_type }}) rlike '^(tinyint|smallint|mediumint|int|integer)\\b(?!.*unsigned)' then 'int'
        when lower({{ source_type }}) rlike '^bigint\\b.*unsigned' then 'decimal(20,0)'
        when lower({{ source_type }}) rlike '^(tinyint|smallint|mediumint|int|integer|bigint)\\b' then 'bigint'
        when lower({{ source_type }}) rlike '^(decimal|numeric)\\s*\\(\\s*\\d+\\s*(,\\s*\\d+\\s*)?\\)' then format_string(
            'decimal(%d,%d)',
            least(cast(regexp_extract(lower({{ source_type }}), '\\(\\s*(\\d+)', 1) as int), 38),
            least(coalesce(cast(nullif(regexp_extract(lower({{ source_type }}), ',\\s*(\\d+)', 1), '') as int), 0), 38)
        )
        when lower({{ source_type }}) rlike '^(float|double|real)\\b' then 'double'
        when lower({{ source_type }}) rlike '^date$' then 'date'
        when lower({{ source_type }}) rlike '^(datetime|timestamp)\\b' then 'timestamp'
        when lower({{ source_type }}) rlike '^(bool|boolean)$' then 'boolean'
        else 'string'
    end
{%- endmacro %}


{% macro quoted_identifier(name) -%}
    `{{ name | string | replace('`', '``') }}`
{%- endmacro %}


{#- A name safe as a Spark identifier part: lower-case letters, digits and underscores. -#}
{% macro safe_name(name) -%}
    {{ return(modules.re.sub('[^a-z0-9_]', '_', name | string | lower)) }}
{%- endmacro %}
