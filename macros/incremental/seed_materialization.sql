{#- The seed materialization on the sparkpy adapter (the local, Thrift and Connect targets):
    dbt's, except that a seed whose table was loaded from the same file, configuration and
    columns (their digest, noted on the table as `cdc.seeded_from`) is left as it is, and dbt
    reports `UNCHANGED`: a build does not drop and load the lookup tables again.
    `--full-refresh` loads every seed. Databricks runs dbt-databricks' materialization. -#}
{% materialization seed, adapter='sparkpy' -%}
    {%- set digest = local_md5([model.checksum.checksum, tojson(model.config), tojson(model.columns)] | join('\n')) -%}
    {%- set existing = load_relation(this) -%}
    {%- if existing is not none and not should_full_refresh() and table_property(existing, 'cdc.seeded_from') == digest -%}
        {#- dbt's seed task reads the file's rows from the result, loaded or not. -#}
        {%- do store_result('agate_table', response='OK', agate_table=load_agate_table()) -%}
        {%- call noop_statement('main', 'UNCHANGED', 'UNCHANGED', 0) -%}
            -- {{ this }} holds this seed's file as it is: it is left as it is.
        {%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- set relations = context['materialization_seed_default']() -%}
    {%- do set_table_property(this, 'cdc.seeded_from', digest) -%}
    {{ return(relations) }}
{%- endmaterialization %}
