{#- A TRUNCATE or DROP between a change and the row's next change, in the order of its changes
    (`row_change_order`), ends the version the change opened. Of several (the same TRUNCATE may
    come in several formats) the first in that order wins, so that every build names the same
    one. A reset ends the rows of its table incarnation only. Each change looks through its
    table incarnation's few resets, sorted, joined broadcast: a window picking the first of the
    resets a join matched would sort every change again. -#}
{% macro version_resets(lives, resets) -%}
    select /*+ broadcast(resets) */
        lives.*,
        try_element_at(
            filter(
                resets.resets,
                reset -> lives.change_order < reset.reset_order
                    and (lives.next_change_order is null or lives.next_change_order > reset.reset_order)
            ),
            1
        ) as reset
    from {{ lives }} as lives
    left join (
        select
            database_name,
            table_name,
            table_incarnation,
            -- Sorted by the first field, the reset's place in the order of the changes.
            array_sort(collect_list(struct(
                struct({{ row_change_order() }}) as reset_order, change_id, ddl_kind, reset_at, is_carried
            ))) as resets
        from {{ resets }}
        group by database_name, table_name, table_incarnation
    ) as resets
        on
            lives.database_name = resets.database_name
            and lives.table_name = resets.table_name
            and lives.table_incarnation <=> resets.table_incarnation
{%- endmacro %}
