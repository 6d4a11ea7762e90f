{#- Deletes from dim_row_versions (`this`, after an incremental run's MERGE) the versions a
    rename carried that it no longer does: a late DELETE, TRUNCATE or DROP before the rename
    ended the row first, and the rebuild gave no version in their place (a full refresh gives
    none). A carried version stands while its row's version under the old name is closed by
    the same rename; one pass per rename of a chain (a to b, then b to c), until none is left.
    Only the tables renames touched are read. -#}
{% macro delete_uncarried_versions() -%}
    {%- if not incremental_run() %}{{ return('') }}{% endif -%}
    {%- set renames = 'select database_name, {0} from ' ~ ref('fct_schema_changes') ~ ' where previous_table_name is not null' -%}
    {%- set uncarried -%}
        select carried.database_name, carried.table_name, carried.primary_key, carried.opened_by_change_id
        from {{ this }} as carried
        left anti join (
            select database_name, primary_key, closed_by_change_id
            from {{ this }}
            where closed_by_operation = 'RENAME' and (database_name, table_name) in ({{ renames.format('previous_table_name') }})
        ) as origins
            on
                carried.database_name = origins.database_name
                and carried.primary_key = origins.primary_key
                and carried.opened_by_change_id = origins.closed_by_change_id
        where carried.opened_by_operation = 'RENAME' and (carried.database_name, carried.table_name) in ({{ renames.format('table_name') }})
    {%- endset -%}
    {%- set pass = namespace(left=true) -%}
    {%- for hop in range(1000) if pass.left -%}
        {%- set pass.left = run_query('select count(*) from (' ~ uncarried ~ ')').columns[0].values()[0] > 0 -%}
        {%- if pass.left -%}
            {%- do run_query(
                'merge into ' ~ this ~ ' as versions using (' ~ uncarried ~ ') as uncarried on '
                ~ 'versions.database_name = uncarried.database_name and versions.table_name = uncarried.table_name'
                ~ ' and versions.primary_key = uncarried.primary_key and versions.opened_by_change_id = uncarried.opened_by_change_id'
                ~ ' when matched then delete'
            ) -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}
