{#- Each row's events in the order they took effect (`row_change_order`), each with the change
    after it (which closes the version it opens) and its life: a row lives from an INSERT, or its
    first change after it ended, to its end, and images carry over only within one life. A
    change's time is when it took effect (`ordered_at`), so that a row's versions follow each
    other in time. A row is its table incarnation's (`row_identity`): the rows a rename carried
    to a name live apart from those the name had before. -#}
{% macro row_lives(events) -%}
    select
        *,
        sum(if(operation = 'INSERT' or coalesce(follows_row_end, true), 1, 0)) over (
            partition by {{ row_identity() }} order by change_number
        ) as life_number
    from (
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
            lag(ends_row) over row_history as follows_row_end,
            -- Numbered among all the row's changes under this name, its earlier incarnations' first.
            row_number() over (
                partition by database_name, table_name, primary_key
                order by table_incarnation.renamed_at nulls first, table_incarnation.change_id, {{ row_change_order() }}
            ) as change_number,
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
    ) as sequenced
{%- endmacro %}
