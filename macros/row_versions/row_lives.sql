{#- Each row's events in the order they took effect (`row_change_order`), each with the change
    after it (which closes the version it opens) and its life: a row lives from an INSERT, or its
    first change after it ended, to its end, and images carry over only within one life. A
    change's time is when it took effect (`ordered_at`), so that a row's versions follow each
    other in time. A row is its table incarnation's (`row_identity`): the rows a rename carried
    to a name live apart from those the name had before. Every window here sorts as
    `row_history` does (an incarnation sorts by its rename's time), so Spark sorts the events
    once. -#}
{% macro row_lives(events) -%}
    select
        {{ row_identity() }},
        is_carried,
        change_id,
        operation,
        after_image,
        before_image_source,
        changed_columns,
        ends_row,
        ordered_at as changed_at,
        struct({{ row_change_order() }}) as change_order,
        -- Numbered among all the row's changes under this name, its earlier incarnations' first.
        row_number() over (
            partition by database_name, table_name, primary_key
            order by table_incarnation, {{ row_change_order() }}
        ) as change_number,
        -- The INSERTs up to a change and the ends before it: a number that grows exactly where a
        -- life begins (at an INSERT or after an end), the same for a life's changes. `row_history`
        -- spelt out: Spark's SQL adds no frame to a named window.
        sum(if(operation = 'INSERT', 1, 0) + if(ends_row, 1, 0)) over (
            partition by {{ row_identity() }}
            order by {{ row_change_order() }}
            rows between unbounded preceding and current row
        ) - if(ends_row, 1, 0) as life_number,
        lead(change_id) over row_history as next_change_id,
        lead(operation) over row_history as next_operation,
        lead(is_carried) over row_history as next_is_carried,
        lead(ordered_at) over row_history as next_changed_at,
        lead(struct({{ row_change_order() }})) over row_history as next_change_order
    from ({{ ordered_changes(events) }}) as ordered
    window row_history as (
        partition by {{ row_identity() }}
        order by {{ row_change_order() }}
    )
{%- endmacro %}
