{#- TRUNCATE and DROP end every row of their table that is open at their time. -#}
{% macro table_resets(schema_changes) -%}
    select
        database_name,
        table_name,
        change_id,
        ddl_kind,
        coalesce(event_at, emitted_at) as reset_at,
        loaded_at
    from {{ schema_changes }}
    where ddl_kind in ('TRUNCATE', 'DROP') and table_name is not null
{%- endmacro %}
