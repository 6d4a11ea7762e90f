{#- The keys whose rows an incremental run of fct_replica_changes computes again, each with all
    its loads: those whose versions dim_row_versions wrote since the newest load this model read
    (`loaded_through_this`). A late change rewrites its row's versions, and with them the row's
    net change in each load; a TRUNCATE, DROP or DROP COLUMN rewrites the versions of the rows it
    ends or changes. A key of a renamed table comes with the same key under each renamed table
    name of its database: a late change before a rename can take out a row the rename carried,
    which leaves no version under the new name to say so. The renamed names, few, are inlined,
    read once per run (the model's compile and its pre-hook both ask). -#}
{% macro replica_change_keys_to_rebuild() -%}
    {%- set families = [] -%}
    {%- for database_name, table_names in renamed_table_families(ref('fct_schema_changes')).items() -%}
        {%- set names = [] -%}
        {%- for table_name in table_names %}{% do names.append(string_literal(table_name)) %}{% endfor -%}
        {%- do families.append(string_literal(database_name) ~ ', array(' ~ names | join(', ') ~ ')') -%}
    {%- endfor -%}
    {%- set family = 'map(' ~ families | join(', ') ~ ')[coalesce(database_name, \'\')]' -%}
    select distinct
        database_name,
        {{ 'keyed_table_name' if families else 'table_name' }} as table_name,
        primary_key
    from {{ ref('dim_row_versions') }}
    {%- if families %}
        lateral view explode(if(array_contains({{ family }}, table_name), {{ family }}, array(table_name))) keyed as keyed_table_name
    {%- endif %}
    where {{ later_than_micros('loaded_at', loaded_through_this()) }}
{%- endmacro %}


{#- The pre-hook of fct_replica_changes: in an incremental run, deletes the rows of the keys it
    computes again (`replica_change_keys_to_rebuild`), which the run then appends; a key's new
    rows may leave out a load an old one listed. A run stopped between the two is caught up by
    the next, which starts from the same load (`keep_loaded_through`). -#}
{% macro delete_replica_changes_to_rebuild() -%}
    {%- if incremental_run() -%}
        merge into {{ this }} as changes
        using ({{ replica_change_keys_to_rebuild() }}) as rebuilt
            on
                changes.database_name <=> rebuilt.database_name
                and changes.table_name <=> rebuilt.table_name
                and changes.primary_key = rebuilt.primary_key
        when matched then delete
    {%- endif -%}
{%- endmacro %}
