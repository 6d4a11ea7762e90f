{#- A TRUNCATE or DROP between a change and the row's next change, in the order of its changes
    (`row_change_order`), ends the version the change opened. Of several (the same TRUNCATE may
    come in several formats) the first in that order wins, so that every build names the same
    one. A reset ends the rows of its table incarnation only. -#}
{% macro version_resets(lives, resets) -%}
    {#- Built here from the reset's columns: Spark 3.5's optimizer fails an assertion on a struct
        column of table_resets compared in this join. -#}
    {%- set reset_order = 'struct(' ~ row_change_order('resets') ~ ')' -%}
    select *
    from (
        select
            lives.*,
            if(
                resets.change_id is null,
                null,
                struct(resets.change_id, resets.ddl_kind, resets.reset_at, resets.is_carried, {{ reset_order }} as reset_order)
            ) as reset,
            row_number() over (
                partition by {{ row_identity('lives') }}, lives.change_number
                order by {{ reset_order }}
            ) as reset_number
        from {{ lives }} as lives
        left join {{ resets }} as resets
            on
                lives.database_name = resets.database_name
                and lives.table_name = resets.table_name
                and lives.table_incarnation <=> resets.table_incarnation
                and lives.change_order < {{ reset_order }}
                and (lives.next_change_order is null or lives.next_change_order > {{ reset_order }})
    ) as candidates
    where reset_number = 1
{%- endmacro %}
