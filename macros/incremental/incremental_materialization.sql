{#- The incremental materialization on the sparkpy adapter (the local, Thrift and Connect
    targets): dbt-spark's, with its macros, for this project's strategies (append, merge), but
    an incremental run that finds nothing new for the model (`nothing_new_for_this`) leaves its
    table as it is: no query planned, no Python model run, nothing written, and dbt reports
    `NOTHING NEW`. It is written out, not a wrapper around dbt-spark's: dbt runs a Python model
    only from the materialization itself. Databricks runs dbt-databricks' materialization. -#}
{% materialization incremental, adapter='sparkpy', supported_languages=['sql', 'python'] -%}
    {%- set language = model['language'] -%}
    {%- set existing = load_relation(this) -%}
    {%- if incremental_run() and nothing_new_for_this() -%}
        {%- call noop_statement('main', 'NOTHING NEW', 'NOTHING NEW', 0) -%}
            -- Nothing new for {{ this }}: its table is left as it is.
        {%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- set strategy = dbt_spark_validate_get_incremental_strategy(
        config.get('incremental_strategy') or 'append', dbt_spark_validate_get_file_format(config.get('file_format', 'parquet'))
    ) -%}
    {%- if strategy not in ['append', 'merge'] -%}
        {{ exceptions.raise_compiler_error('The incremental models of this project append or merge, not ' ~ strategy) }}
    {%- endif -%}
    {{ run_hooks(pre_hooks) }}
    {%- if existing is none or existing.is_view or should_full_refresh() -%}
        {%- if existing is not none and not (existing.is_delta and config.get('file_format') == 'delta') -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- call statement('main', language=language) -%}
            {{ create_table_as(false, this, compiled_code, language) }}
        {%- endcall -%}
        {%- do persist_constraints(this, model) -%}
    {%- else -%}
        {#- SQL writes the increment to a temporary view, Python to a table (its session is
            another one). -#}
        {%- set increment = this.incorporate(path={'identifier': this.identifier ~ '__dbt_tmp'}) -%}
        {%- if language == 'sql' %}{% set increment = increment.include(database=false, schema=false) %}{% endif -%}
        {%- call statement('create_tmp_relation', language=language) -%}
            {{ create_table_as(true, increment, compiled_code, language) }}
        {%- endcall -%}
        {%- do process_schema_changes(
            incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore'), increment, existing
        ) -%}
        {%- call statement('main') -%}
            {{ dbt_spark_get_incremental_sql(strategy, increment, this, existing, config.get('unique_key'), config.get('incremental_predicates')) }}
        {%- endcall -%}
        {%- if language == 'python' -%}
            {%- call statement('drop_relation') %}drop table if exists {{ increment }}{% endcall -%}
        {%- endif -%}
    {%- endif -%}
    {%- do keep_loaded_through() -%}
    {%- do apply_grants(this, config.get('grants'), should_revoke(existing, full_refresh_mode=should_full_refresh())) -%}
    {%- do persist_docs(this, model) -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [this]}) }}
{%- endmaterialization %}


{#- Whether no input of this model holds anything it has not loaded: no file of a landing
    source it reads whose path it does not hold, and no row loaded after its newest `loaded_at`
    in a model it reads (a view's inputs are read through it). A seed does not count: an
    incremental model labels only rows new elsewhere. An input of any other kind counts as new,
    and so does a model without `loaded_at` or whose inputs are none or seeds only (it reads
    what dbt does not see, as base_kafka__reads reads Kafka). -#}
{% macro nothing_new_for_this() -%}
    {%- set seeds = graph.nodes.values() | selectattr('resource_type', 'equalto', 'seed') | map(attribute='unique_id') | list -%}
    {%- if 'loaded_at' not in model.columns or model.depends_on.nodes | reject('in', seeds) | list == [] -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set loaded = loaded_inputs(model.depends_on.nodes, holds_landed_files=true) -%}
    {{ return(loaded is not none and nothing_loaded_since_this(loaded)) }}
{%- endmacro %}


{#- The tables with `loaded_at` among the nodes (unique ids), views read through; none when a
    node can tell no load time, or is a landing source: with `holds_landed_files` (the nodes
    are what an incremental model reads), one that lists a file this model does not hold. With
    `seeds` (a list), each seed's id and file checksum are appended to it. -#}
{% macro loaded_inputs(unique_ids, holds_landed_files=false, seeds=none) -%}
    {%- set tables = [] -%}
    {%- for unique_id in unique_ids -%}
        {%- set node = graph.nodes.get(unique_id) or graph.sources.get(unique_id) -%}
        {%- set landing = {'landed_lines': ['lines', 'containers'], 'landed_container_files': ['containers']}.get(node.name) -%}
        {%- if node.resource_type == 'source' and landing and holds_landed_files -%}
            {%- if oldest_landed_file_not_in([node.source_name], held_file_paths(), landing) is not none %}{{ return(none) }}{% endif -%}
        {%- elif node.resource_type == 'model' and node.config.materialized == 'view' -%}
            {%- set upstream = loaded_inputs(node.depends_on.nodes, seeds=seeds) -%}
            {%- if upstream is none %}{{ return(none) }}{% endif -%}
            {%- do tables.extend(upstream) -%}
        {%- elif node.resource_type == 'model' and 'loaded_at' in node.columns -%}
            {%- do tables.append(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias)) -%}
        {%- elif node.resource_type == 'seed' -%}
            {%- if seeds is not none %}{% do seeds.append(unique_id ~ ' ' ~ node.checksum.checksum) %}{% endif -%}
        {%- else -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(tables) }}
{%- endmacro %}
