{#- A predicate on `database_name` and `table_name`: the tables a rename loaded after this
    model's newest load touches (every table, outside an incremental run). A column rename
    touches its table; a table rename its two names. A touched name that a table rename ever
    gave or took comes with every such name of its database, as a rename carries rows from one
    to the next. Asked once per run (the model's compile and its pre-hook both ask). -#}
{% macro tables_renamed_since_this(schema_changes) -%}
    {%- if not incremental_run() %}{{ return('true') }}{% endif -%}
    {%- set query -%}
        with new_changes as (
            select * from {{ schema_changes }} where {{ loaded_after_this() }}
        ),

        renamed as (
            select database_name, explode(array(table_name, previous_table_name)) as table_name
            from new_changes
            where previous_table_name is not null
            union all
            select database_name, table_name from ({{ column_ddl('new_changes') }}) as column_ddl where change = 'RENAME'
        ),

        families as (
            select database_name, collect_set(names.table_name) as table_names
            from {{ schema_changes }}
                lateral view explode(array(table_name, previous_table_name)) names as table_name
            where previous_table_name is not null
            group by database_name
        )

        select distinct renamed.database_name, touched.table_name
        from renamed
        left join families on renamed.database_name = families.database_name
            lateral view explode(
                if(array_contains(families.table_names, renamed.table_name), families.table_names, array(renamed.table_name))
            ) touched as table_name
        where renamed.database_name is not null
    {%- endset -%}
    {%- set tables = [] -%}
    {%- for database_name, table_name in query_rows_once(query) -%}
        {%- do tables.append('(' ~ string_literal(database_name) ~ ', ' ~ string_literal(table_name) ~ ')') -%}
    {%- endfor -%}
    {{ return('(database_name, table_name) in (' ~ tables | join(', ') ~ ')' if tables else 'false') }}
{%- endmacro %}


{#- The pre-hook of int_row_change_columns: in an incremental run, deletes the sums of the
    tables a rename loaded since touches (`tables_renamed_since_this`), which the run then sums
    up again from all their changes. A run stopped between the two is caught up by the next:
    the rename is still newer than the table's newest load. -#}
{% macro delete_sums_of_renamed_tables() -%}
    {%- if incremental_run() -%}
        {%- set renamed = tables_renamed_since_this(ref('fct_schema_changes')) -%}
        {%- if renamed != 'false' %}delete from {{ this }} where {{ renamed }}{% endif -%}
    {%- endif -%}
{%- endmacro %}
