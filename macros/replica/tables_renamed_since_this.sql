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
        )

        select distinct database_name, table_name
        from (
            select database_name, explode(array(table_name, previous_table_name)) as table_name
            from new_changes
            where previous_table_name is not null
            union all
            select database_name, table_name from ({{ column_ddl('new_changes') }}) as column_ddl where change = 'RENAME'
        ) as renamed
        where database_name is not null and table_name is not null
    {%- endset -%}
    {%- set families = renamed_table_families(schema_changes) -%}
    {%- set tables = [] -%}
    {%- for database_name, table_name in query_rows_once(query) -%}
        {%- set family = families.get(database_name, []) -%}
        {%- for touched in (family if table_name in family else [table_name]) -%}
            {%- do tables.append('(' ~ string_literal(database_name) ~ ', ' ~ string_literal(touched) ~ ')') -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return('(database_name, table_name) in (' ~ tables | unique | join(', ') ~ ')' if tables else 'false') }}
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
