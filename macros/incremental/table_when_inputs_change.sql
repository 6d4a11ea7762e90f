{#- A table, as the target's table materialization builds it, except that a table built from
    the same inputs is left as it is (dbt reports `UNCHANGED`): the same compiled query and
    configuration, the same seeds and no row loaded into a model it reads since (`built_from`,
    noted on the table). For SQL models whose every input is a ref or a seed. -#}
{% materialization table_when_inputs_change, default -%}
    {%- set inputs = built_from() -%}
    {%- set existing = load_relation(this) -%}
    {%- if inputs and existing is not none
        and table_property(existing, 'cdc.built_from') == inputs -%}
        {%- call noop_statement('main', 'UNCHANGED', 'UNCHANGED', 0) -%}
            -- {{ this }} was built from the same inputs: it is left as it is.
        {%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- set table = ['materialization_table_' ~ adapter.type(), 'materialization_table_spark'] | select('in', context) | first -%}
    {%- set relations = context[table]() -%}
    {%- if inputs -%}
        {%- do set_table_property(this, 'cdc.built_from', inputs) -%}
    {%- endif -%}
    {{ return(relations) }}
{%- endmaterialization %}


{#- The digest of what this table model is built from: its compiled query, configuration and
    columns, each seed it reads (its file's checksum) and the newest `loaded_at` of each model it
    reads (views read through). None when it reads something else (a landing) or nothing dbt
    knows of, under a full refresh, or where dbt does not look at the warehouse. -#}
{% macro built_from() -%}
    {%- if not (execute and flags.INTROSPECT is not false and flags.WHICH != 'show') or should_full_refresh() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if model.depends_on.nodes | list == [] %}{{ return(none) }}{% endif -%}
    {%- set parts = [compiled_code, tojson(model.config), tojson(model.columns)] -%}
    {%- set loaded = loaded_inputs(model.depends_on.nodes, seeds=parts) -%}
    {%- if loaded is none %}{{ return(none) }}{% endif -%}
    {%- for relation in loaded %}{% do parts.append(relation ~ ' ' ~ newest_loaded_micros(relation)) %}{% endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{%- endmacro %}
