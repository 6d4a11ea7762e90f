{#- The materialization of dim_replica_tables. The model's query lists the tables to replicate;
    each gets a Delta table, written as `replica_writes` says. The model's table is the listing
    with what each replica holds now and how this run wrote it (`replica_stats_sql`), for the
    data tests and for the next run. Relations left in the replica schema by tables no longer
    listed are dropped. -#}
{% materialization replicas, default %}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {{ run_hooks(pre_hooks) }}

    {%- set columns = {} -%}
    {%- for column in run_query(replica_columns_query()) -%}
        {%- do columns.setdefault(column['database_name'] ~ '.' ~ column['table_name'], []).append(column) -%}
    {%- endfor -%}
    {%- set newest = {} -%}
    {%- for table in run_query('select database_name, table_name, unix_micros(max(loaded_at)) from ' ~ ref('dim_row_versions') ~ ' group by 1, 2') -%}
        {%- do newest.update({table[0] ~ '.' ~ table[1]: table[2]}) -%}
    {%- endfor -%}
    {%- set noted = {} -%}
    {%- if existing is not none and 'definition_md5' in adapter.get_columns_in_relation(existing) | map(attribute='name') -%}
        {%- for table in run_query(
            'select database_name, table_name, replica_name as identifier, definition_md5, unix_micros(loaded_through) as loaded_through,'
            ~ ' replica_rows, replica_keys, keyed_rows, overflowing_rows from ' ~ existing
        ) -%}
            {%- do noted.update({table['database_name'] ~ '.' ~ table['table_name']: table}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set schema = api.Relation.create(database=this.database, schema=this.schema ~ '_replica') -%}
    {%- set replicas = [] -%}
    {%- for table in run_query('select *, to_json(renamed_from) as renamed_from_json from (' ~ sql ~ ') as listing') -%}
        {%- set name = table['database_name'] ~ '.' ~ table['table_name'] -%}
        {%- if loop.first -%}{% do adapter.create_schema(schema) %}{%- endif -%}
        {%- set replica = replica_definition(table, columns[name], schema) -%}
        {#- Versions loaded under an earlier name can take out rows a rename carried here. -#}
        {%- set loads = [] -%}
        {%- for loaded in [table['table_name']] + replica.renamed_from -%}
            {%- do loads.append(newest.get(table['database_name'] ~ '.' ~ loaded)) -%}
        {%- endfor -%}
        {%- set loads = loads | reject('none') | list -%}
        {%- do replica.update({'loaded_through': loads | max if loads else none, 'noted': noted.get(name)}) -%}
        {%- do replica.update(replica_writes(replica)) -%}
        {%- do replicas.append(replica) -%}
    {%- endfor -%}
    {#- Each replica's statements in order, the replicas side by side. -#}
    {%- do run_side_by_side(replicas | map(attribute='statements') | list) -%}

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


{#- A replica of the listing's row `table`, with `columns` its rows of `replica_columns_query`,
    in `schema`: its names, the table's earlier names, relation, options, outputs
    (`replica_outputs`), each column's names before renames, and the MD5 of its options and
    columns (names and types). -#}
{% macro replica_definition(table, columns, schema) -%}
    {%- set options = replica_options(table['database_name'] ~ '.' ~ table['table_name']) -%}
    {%- set outputs = replica_outputs(columns, options) -%}
    {%- set previous_names = {} -%}
    {%- for column in columns -%}
        {%- do previous_names.update({column['replica_column_name']: fromjson(column['previous_names'])}) -%}
    {%- endfor -%}
    {{ return({
        'database_name': table['database_name'],
        'table_name': table['table_name'],
        'renamed_from': fromjson(table['renamed_from_json']),
        'relation': api.Relation.create(database=schema.database, schema=schema.schema, identifier=table['replica_name'], type='table'),
        'options': options,
        'outputs': outputs,
        'previous_names': previous_names,
        'definition_md5': local_md5(tojson([options, outputs | map(attribute=0) | list, outputs | map(attribute=2) | list])),
    }) }}
{%- endmacro %}


{#- How to write `replica`, whose table's versions (under its name or an earlier one) were
    loaded up to `replica.loaded_through` (unix microseconds; none when it has none);
    `replica.noted` is the last run's listing of it: `write`, how (`created`, `rewritten`,
    `merged` or `unchanged`), and the `statements` that do it.
    Made anew when missing, under --full-refresh, or when its options changed or a column's
    type did beyond what Delta widens in place (the old table dropped here, logged). Otherwise
    its columns follow the DDL (`replica_schema_changes`; unless the listing notes the same
    definition), then a MERGE writes the rows of the keys with versions loaded since the
    listing's `loaded_through`, or the replica's newest `_loaded_at` (a run stopped before
    writing the listing). -#}
{% macro replica_writes(replica) -%}
    {%- set noted = replica.noted -%}
    {%- set found = adapter.get_relation(database=replica.relation.database, schema=replica.relation.schema, identifier=replica.relation.identifier) -%}
    {%- set changes = none -%}
    {%- if found is not none and found.type == 'table' and not should_full_refresh() -%}
        {%- if noted and noted.identifier == replica.relation.identifier and noted.definition_md5 == replica.definition_md5 -%}
            {%- set changes = [] -%}
            {%- set applied = noted.loaded_through -%}
        {%- else -%}
            {%- set changes = replica_schema_changes(found, replica) -%}
            {%- set applied = run_query('select unix_micros(max(_loaded_at)) from ' ~ replica.relation).columns[0].values()[0] -%}
        {%- endif -%}
    {%- endif -%}
    {%- if changes is none -%}
        {%- if found is not none -%}
            {%- do adapter.drop_relation(found) -%}
            {%- do log('Replica ' ~ replica.relation ~ ' made anew: a full refresh, or its options changed or a column\'s type did beyond what Delta widens in place.', info=True) -%}
        {%- endif -%}
        {{ return({'write': 'created' if found is none else 'rewritten', 'statements': replica_create_statements(replica)}) }}
    {%- endif -%}
    {%- if replica.loaded_through is none or applied is not none and replica.loaded_through <= applied -%}
        {{ return({'write': 'unchanged', 'statements': changes}) }}
    {%- endif -%}
    {{ return({'write': 'merged', 'statements': changes + [replica_merge_sql(replica, applied)]}) }}
{%- endmacro %}


{#- Every replicated column, in the replica's order: the source's where known, then as first
    seen. -#}
{% macro replica_columns_query() -%}
    select database_name, table_name, column_name, replica_column_name, spark_type, source_type, is_dropped, to_json(previous_names) as previous_names
    from {{ ref('dim_replica_columns') }}
    order by database_name, table_name, ordinal_position nulls last, first_seen_at nulls last, column_name
{%- endmacro %}


{#- The listing (`listing_sql`) with what each of `replicas` holds now: its rows (the current
    versions of an SCD type 2 replica, the live rows of one with soft deletes), its distinct
    and non-null keys among them, its rows with a value in `_overflow`, and how this run wrote
    it. The rows of the replicas this run wrote are stacked and counted in one aggregation (one
    per replica took a shuffle each); the others keep the last listing's counts. A replica made
    anew this run holds just the rows its one insert added, so they are read from its change data
    feed, which lists them from the commit: a first read of the table would compute the table's
    state by Spark jobs (a few times the cost, docs/performance.md). -#}
{% macro replica_stats_sql(listing_sql, replicas) -%}
    {%- set counted = [] -%}
    {%- for replica in replicas if replica.write != 'unchanged' or replica.noted is none -%}
        {%- do counted.append(replica) -%}
    {%- endfor -%}
    {%- set counts = ['replica_rows', 'replica_keys', 'keyed_rows', 'overflowing_rows'] -%}
    select
        listing.*,
        {%- for count in counts %}
        coalesce(stats.{{ count }}, written.{{ count }}, 0) as {{ count }},
        {%- endfor %}
        written.write_action,
        written.definition_md5,
        timestamp_micros(written.loaded_through) as loaded_through
    from ({{ listing_sql }}) as listing
    left join (
        select * from values
            {%- for replica in replicas %}
            {%- set noted = replica.noted if replica not in counted else {} %}
            ({{ string_literal(replica.database_name) }}, {{ string_literal(replica.table_name) }}, {{ string_literal(replica.write) }},
             {{ string_literal(replica.definition_md5) }}, cast({{ replica.loaded_through if replica.loaded_through is not none else 'null' }} as bigint)
             {%- for count in counts %}, cast({{ noted.get(count) if noted.get(count) is not none else 'null' }} as bigint){% endfor %}){{ ',' if not loop.last }}
            {%- else %}
            (cast(null as string), cast(null as string), cast(null as string), cast(null as string), cast(null as bigint)
             {%- for count in counts %}, cast(null as bigint){% endfor %})
            {%- endfor %}
            as written (database_name, table_name, write_action, definition_md5, loaded_through, {{ counts | join(', ') }})
    ) as written
        on listing.database_name = written.database_name and listing.table_name = written.table_name
    left join (
        select
            database_name,
            table_name,
            count(*) as replica_rows,
            count(distinct primary_key) as replica_keys,
            count(primary_key) as keyed_rows,
            count_if(is_overflowing) as overflowing_rows
        from (
            {%- for replica in counted %}
            select
                {{ string_literal(replica.database_name) }} as database_name,
                {{ string_literal(replica.table_name) }} as table_name,
                _primary_key as primary_key,
                size(_overflow) > 0 as is_overflowing
            {%- if replica.write in ['created', 'rewritten'] %}
            from table_changes({{ string_literal(replica.relation | string) }}, 0)
            where _change_type = 'insert'
            {%- else %}
            from {{ replica.relation }}
            where true
            {%- endif %}
            {%- if replica.options.get('scd_type') == 2 %}
                and {{ 'dbt_valid_to' if replica.options.get('column_names') == 'dbt_snapshot' else '_valid_to' }} is null
            {%- elif replica.options.get('deletes') == 'soft' %}
                and not _is_deleted
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
