{#- The net change of each row of one source table over the loads after `loaded_after` up to
    `loaded_until` (fct_replica_changes composed): its image before the first of them and after
    the last, and `change_type` (INSERT, UPDATE or DELETE). A row absent before and after is not
    listed. `dbt show --inline "{{ replica_changes('shop', 'orders', '2024-01-01', '2024-01-02') }}"`. -#}
{% macro replica_changes(database_name, table_name, loaded_after, loaded_until) -%}
    select
        primary_key,
        case
            when min_by(before_image, loaded_at) is null then 'INSERT'
            when max_by(after_image, loaded_at) is null then 'DELETE'
            else 'UPDATE'
        end as change_type,
        min_by(before_image, loaded_at) as before_image,
        max_by(after_image, loaded_at) as after_image,
        max(loaded_at) as loaded_at
    from {{ ref('fct_replica_changes') }}
    where
        database_name = {{ string_literal(database_name) }}
        and table_name = {{ string_literal(table_name) }}
        and loaded_at > cast({{ string_literal(loaded_after) }} as timestamp)
        and loaded_at <= cast({{ string_literal(loaded_until) }} as timestamp)
    group by primary_key
    having min_by(before_image, loaded_at) is not null or max_by(after_image, loaded_at) is not null
{%- endmacro %}
