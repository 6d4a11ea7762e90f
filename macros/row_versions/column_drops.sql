{#- Each DROP COLUMN (`column_ddl`) with the columns `row_change_order` sorts by (event time,
    emit time when unknown): a row's value of the column ends there. With `row_changes`, also
    each column a change of a `whole_schema` format leaves out of its types that the table's
    previous change in that format (`source_order`) listed: dropped with no DDL
    to say so (Postgres sends none), just before that change. With `renames`
    (`table_renames`), under each table incarnation its table's rows reach
    (`through_renames`). -#}
{% macro column_drops(schema_changes, renames=none, row_changes=none) -%}
    {%- set columns = [
        'change_id', 'source_format', 'database_name', 'table_name', 'event_at', 'emitted_at', 'source_position',
        'landed_at', 'file_path', 'line_number', 'message_index', 'row_index', 'loaded_at', 'previous_name',
    ] -%}
    {%- set ddl_columns = columns | reject('in', ['row_index', 'previous_name']) | list -%}
    {%- set drops -%}
        select {{ qualified_columns(columns, overrides={'row_index': '0'}) }}
        from ({{ column_ddl(schema_changes, ddl_columns) }}) as column_changes
        where change = 'DROP'
        {%- if row_changes %}

        union all

        select {{ qualified_columns(columns, overrides={'row_index': 'row_index - 1'}) }}
        from (
            select
                *,
                last(if(size(column_types) > 0, map_keys(column_types), null), true) over (
                    partition by source_format, database_name, table_name
                    order by {{ source_order() }}
                    rows between unbounded preceding and 1 preceding
                ) as previous_columns
            from {{ row_changes }}
            where {{ is_in('source_format', formats_with('whole_schema')) }} and table_name is not null
        ) as listed
            lateral view explode(array_except(previous_columns, map_keys(column_types))) as previous_name
        where size(column_types) > 0
        {%- endif %}
    {%- endset -%}
    {%- if renames -%}
        {%- set drops = through_renames('(' ~ drops ~ ')', renames, columns) -%}
    {%- endif -%}
    select
        *,
        coalesce(event_at, emitted_at) as ordered_at,
        {{ source_place('source_format', 'source_position') }} as source_place
    from ({{ drops }}) as drops
{%- endmacro %}
