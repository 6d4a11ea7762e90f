{#- The rows an incremental run of dim_row_versions rebuilds: those with events loaded since it
    last ran and those open at the time of a new TRUNCATE or DROP (which ends them) or DROP
    COLUMN (which takes a value from them), each to be rebuilt from all its events, so that late
    and out-of-order changes give what a full refresh gives. A DDL a rename carried
    (`through_renames`) is placed before the rename, which opened the versions of the rows it
    carried: those rows are rebuilt. It reads `this`: only dim_row_versions calls it. -#}
{% macro rows_to_rebuild(row_changes, schema_changes, renames, resets, drops) -%}
    {%- set new_ddl_columns = 'database_name, table_name, ordered_at, is_carried, table_incarnation' -%}
    {#- New events come from the changes loaded since (Delta skips older files) and, in a
        database where a rename was loaded since, from every change of a table ever renamed
        there: the rename carries their rows to a new name, along each hop of a chain
        (`through_renames` gives those events the rename's load time). -#}
    {%- set renamed -%}
        select distinct database_name, previous_table_name
        from {{ schema_changes }}
        where previous_table_name is not null and database_name in (
            select database_name from {{ schema_changes }} where previous_table_name is not null and {{ loaded_after_this() }}
        )
    {%- endset -%}
    {%- set carried = [] -%}
    {%- for database_name, table_name in run_query(renamed) -%}
        {%- do carried.append('(' ~ string_literal(database_name) ~ ', ' ~ string_literal(table_name) ~ ')') -%}
    {%- endfor -%}
    {%- set changes -%}
        (
            select * from {{ row_changes }}
            where {{ loaded_after_this() }}{{ ' or (database_name, table_name) in (' ~ carried | join(', ') ~ ')' if carried }}
        )
    {%- endset -%}
    select
        database_name,
        table_name,
        primary_key
    from ({{ row_events(changes, renames) }}) as events
    where {{ loaded_after_this() }}

    union all

    select
        versions.database_name,
        versions.table_name,
        versions.primary_key
    from {{ this }} as versions
    inner join (
        select {{ new_ddl_columns }} from {{ resets }} where {{ loaded_after_this() }}
        union all
        select {{ new_ddl_columns }} from {{ drops }} where {{ loaded_after_this() }}
    ) as new_ddl
        on
            versions.database_name = new_ddl.database_name
            and versions.table_name = new_ddl.table_name
            and (
                (
                    versions.valid_from <= new_ddl.ordered_at
                    and (versions.valid_to is null or versions.valid_to >= new_ddl.ordered_at)
                )
                or (new_ddl.is_carried and versions.opened_by_change_id = new_ddl.table_incarnation.change_id)
            )
{%- endmacro %}
