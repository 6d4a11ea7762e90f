{#- Each row's events in the order they took effect (`row_change_order`), each with the change
    after it (which closes the version it opens) and its life: a row lives from an INSERT, or its
    first change after it ended, to its end, and images carry over only within one life. -#}
{% macro row_lives(events) -%}
    select
        *,
        sum(if(operation = 'INSERT' or coalesce(follows_row_end, true), 1, 0)) over (
            partition by database_name, table_name, primary_key order by change_number
        ) as life_number
    from (
        select
            database_name,
            table_name,
            primary_key,
            change_id,
            operation,
            after_image,
            ends_row,
            coalesce(event_at, emitted_at) as changed_at,
            lag(ends_row) over row_history as follows_row_end,
            row_number() over row_history as change_number,
            lead(change_id) over row_history as next_change_id,
            lead(operation) over row_history as next_operation,
            lead(coalesce(event_at, emitted_at)) over row_history as next_changed_at
        from {{ events }}
        window row_history as (
            partition by database_name, table_name, primary_key
            order by {{ row_change_order() }}
        )
    ) as sequenced
{%- endmacro %}
