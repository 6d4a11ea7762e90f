{#- A TRUNCATE or DROP between a change and the row's next change ends the version the change
    opened. Of several (the same TRUNCATE may come in several formats at one time) the first
    wins, the change_id settling ties, so that every build names the same one. -#}
{% macro version_resets(lives, resets) -%}
    select *
    from (
        select
            lives.*,
            if(resets.change_id is null, null, struct(resets.change_id, resets.ddl_kind, resets.reset_at)) as reset,
            row_number() over (
                partition by lives.database_name, lives.table_name, lives.primary_key, lives.change_number
                order by resets.reset_at, resets.change_id
            ) as reset_number
        from {{ lives }} as lives
        left join {{ resets }} as resets
            on
                lives.database_name = resets.database_name
                and lives.table_name = resets.table_name
                and lives.changed_at <= resets.reset_at
                and (lives.next_changed_at is null or lives.next_changed_at > resets.reset_at)
    ) as candidates
    where reset_number = 1
{%- endmacro %}
