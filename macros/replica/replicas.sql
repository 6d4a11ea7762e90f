{#- The materialization of dim_replica_tables. The model's query lists the tables to replicate;
    each gets a view (`replica_view_ddl`), re-created each run so that it follows the table's
    DDL: a view is as incremental as the row versions it reads and never differs from them. A
    replica whose query is longer than var('replica_view_text_limit') (a table thousands of
    columns wide) is a table instead: a metastore keeps a view's text only so long. The
    model's table is the listing with what each replica holds now (`replica_stats_sql`), for
    the data tests. Relations left in the replica schema by tables no longer listed are
    dropped. -#}
{% materialization replicas, default %}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {{ run_hooks(pre_hooks) }}

    {%- set columns = {} -%}
    {%- for column in run_query(replica_columns_query()) -%}
        {%- do columns.setdefault(column['database_name'] ~ '.' ~ column['table_name'], []).append(column) -%}
    {%- endfor -%}
    {%- set schema = api.Relation.create(database=this.database, schema=this.schema ~ '_replica') -%}
    {%- set replicas = [] -%}
    {%- for table in run_query(sql) -%}
        {%- set name = table['database_name'] ~ '.' ~ table['table_name'] -%}
        {%- set replica = {
            'database_name': table['database_name'],
            'table_name': table['table_name'],
            'relation': api.Relation.create(database=this.database, schema=schema.schema, identifier=table['replica_name'], type='view'),
            'options': replica_options(name),
        } -%}
        {%- if loop.first -%}{% do adapter.create_schema(schema) %}{%- endif -%}
        {%- set outputs = replica_outputs(columns[name], replica.options) -%}
        {%- set select_sql = replica_select(outputs, replica.database_name, replica.table_name, replica.options) -%}
        {%- set as_table = select_sql | length > var('replica_view_text_limit') -%}
        {%- do replica.update({'relation': replica.relation.incorporate(type='table' if as_table else 'view')}) -%}
        {%- set found = adapter.get_relation(database=this.database, schema=schema.schema, identifier=replica.relation.identifier) -%}
        {%- if found is not none and (as_table or found.type != 'view') -%}{% do adapter.drop_relation(found) %}{%- endif -%}
        {%- if as_table -%}
            {%- do run_query('create table ' ~ replica.relation ~ ' using ' ~ config.get('file_format', 'parquet') ~ ' as ' ~ select_sql) -%}
        {%- else -%}
            {%- do run_query(replica_view_ddl(replica.relation, replica.database_name, replica.table_name, outputs, select_sql, replica.options)) -%}
        {%- endif -%}
        {%- do replicas.append(replica) -%}
    {%- endfor -%}

    {%- if existing is not none -%}{% do adapter.drop_relation(existing) %}{%- endif -%}
    {%- call statement('main') -%}
        {{ create_table_as(false, target_relation, replica_stats_sql(sql, replicas)) }}
    {%- endcall -%}

    {%- if adapter.check_schema_exists(this.database, schema.schema) -%}
        {%- set kept = replicas | map(attribute='relation.identifier') | list -%}
        {%- for listed in run_query('show tables in ' ~ schema) if listed[1] not in kept and not listed[2] -%}
            {%- do adapter.drop_relation(adapter.get_relation(database=this.database, schema=schema.schema, identifier=listed[1])) -%}
        {%- endfor -%}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target_relation] + replicas | map(attribute='relation') | list}) }}
{% endmaterialization %}


{#- Every replicated column, in the replica's order: the source's where known, then as first
    seen. -#}
{% macro replica_columns_query() -%}
    select database_name, table_name, column_name, spark_type, source_type, is_dropped, to_json(previous_names) as previous_names
    from {{ ref('dim_replica_columns') }}
    order by database_name, table_name, ordinal_position nulls last, first_seen_at nulls last, column_name
{%- endmacro %}


{#- The listing (`listing_sql`) with what each of `replicas` holds now: its rows (the current
    versions of an SCD type 2 replica, the live rows of one with soft deletes), its distinct
    and non-null keys among them, and its rows with a value in `_overflow`. The replicas' rows
    are stacked and counted in one aggregation: one per replica took a shuffle each. -#}
{% macro replica_stats_sql(listing_sql, replicas) -%}
    select
        listing.*,
        coalesce(stats.replica_rows, 0) as replica_rows,
        coalesce(stats.replica_keys, 0) as replica_keys,
        coalesce(stats.keyed_rows, 0) as keyed_rows,
        coalesce(stats.overflowing_rows, 0) as overflowing_rows
    from ({{ listing_sql }}) as listing
    left join (
        select
            database_name,
            table_name,
            count(*) as replica_rows,
            count(distinct primary_key) as replica_keys,
            count(primary_key) as keyed_rows,
            count_if(is_overflowing) as overflowing_rows
        from (
            {%- for replica in replicas %}
            select
                {{ string_literal(replica.database_name) }} as database_name,
                {{ string_literal(replica.table_name) }} as table_name,
                _primary_key as primary_key,
                size(_overflow) > 0 as is_overflowing
            from {{ replica.relation }}
            {%- if replica.options.get('scd_type') == 2 %}
            where {{ 'dbt_valid_to' if replica.options.get('column_names') == 'dbt_snapshot' else '_valid_to' }} is null
            {%- elif replica.options.get('deletes') == 'soft' %}
            where not _is_deleted
            {%- endif %}
            {{ 'union all' if not loop.last }}
            {%- else %}
            select
                cast(null as string) as database_name,
                cast(null as string) as table_name,
                cast(null as string) as primary_key,
                false as is_overflowing
            where false
            {%- endfor %}
        ) as replica_rows
        group by database_name, table_name
    ) as stats
        on listing.database_name = stats.database_name and listing.table_name = stats.table_name
{%- endmacro %}


{#- A table's options: every entry of the `replicas.options` var whose `tables` glob matches
    `database.table`, later entries overriding earlier ones. -#}
{% macro replica_options(name) -%}
    {%- set options = {} -%}
    {%- for entry in var('replicas').get('options', []) -%}
        {%- if modules.re.match('(?is)^(' ~ glob_regex(entry['tables']) ~ ')$', name) -%}
            {%- do options.update(entry) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(options) }}
{%- endmacro %}
