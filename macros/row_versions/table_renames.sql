{#- Where a change or DDL of a table sits among the table's renames: its event time, then its
    place and arrival (`place_and_arrival_columns`), as `row_change_order` sorts changes.
    `row_index` is `0` for a DDL. -#}
{% macro rename_order(row_index='row_index') -%}
    struct(
        coalesce(event_at, emitted_at) as changed_at,
        {{ qualified_columns(place_and_arrival_columns(), overrides={
            'source_place': source_place('source_format', 'source_position'),
            'row_index': row_index,
        }) }}
    )
{%- endmacro %}


{#- Each table name's renames (the schema changes' `previous_table_name`), for `through_renames`:
    per database and name, the renames that gave the name (`renamed_into`), each beginning a
    table incarnation (a struct of the rename's time and change id: incarnations sort in time),
    and those that took it away (`renamed_away`), each with its `hops`: the incarnation it
    began, then that of each later rename of the new name in turn (a to b, then b to c, carries
    a's rows to b and on to c), loaded when the latest of them was. Both sorted by
    `rename_order`. -#}
{% macro table_renames(schema_changes) -%}
    {%- set hop = "named_struct('table_name', {0}.table_name, 'table_incarnation', {0}.table_incarnation, "
        ~ "'loaded_at', {1}, 'is_carried', true)" -%}
    {%- set renames -%}
        select database_name, previous_table_name, table_name, change_id, loaded_at, rename_order, table_incarnation
        from (
            -- A rename onto a name that nothing freed since the last rename onto it (no rename of
            -- it away, no DROP) is that rename reported again, in another format: MySQL renames
            -- only onto a free name. It begins no incarnation of its own.
            select
                *,
                last(
                    if(
                        boundary = 'into' and coalesce(previous_boundary, '') != 'into',
                        named_struct('renamed_at', rename_order.changed_at, 'change_id', change_id),
                        null
                    ),
                    true
                ) over (partition by database_name, named_table order by rename_order) as table_incarnation
            from (
                select *, lag(boundary) over (partition by database_name, named_table order by rename_order) as previous_boundary
                from (
                    select *, {{ rename_order('0') }} as rename_order
                    from {{ schema_changes }}
                    where previous_table_name is not null or ddl_kind = 'DROP'
                ) as changes
                    lateral view inline(if(
                        previous_table_name is null,
                        array(named_struct('named_table', table_name, 'boundary', 'drop')),
                        array(
                            named_struct('named_table', table_name, 'boundary', 'into'),
                            named_struct('named_table', previous_table_name, 'boundary', 'away')
                        )
                    )) boundaries as named_table, boundary
            ) as sequenced
        ) as incarnated
        where boundary = 'into'
    {%- endset -%}
    select
        database_name,
        named.table_name,
        array_sort(
            collect_list(named_struct('rename_order', rename_order, 'table_incarnation', hops[0].table_incarnation))
                filter (where named.is_into)
        ) as renamed_into,
        array_sort(collect_list(struct(rename_order, hops)) filter (where not named.is_into)) as renamed_away
    from (
        select
            renames.database_name,
            renames.previous_table_name,
            renames.table_name,
            renames.rename_order,
            aggregate(
                filter(renames.database_renames, later -> later.rename_order > renames.rename_order),
                array({{ hop.format('renames', 'renames.loaded_at') }}),
                (hops, later) -> if(
                    later.previous_table_name = element_at(hops, -1).table_name,
                    concat(hops, array({{ hop.format('later', 'greatest(element_at(hops, -1).loaded_at, later.loaded_at)') }})),
                    hops
                )
            ) as hops
        from (
            -- A window, not a join back: Spark would plan and run the renames twice.
            select
                *,
                array_sort(
                    collect_list(struct(rename_order, previous_table_name, table_name, table_incarnation, loaded_at))
                        over (partition by database_name)
                ) as database_renames
            from ({{ renames }}) as renames
        ) as renames
    ) as chained
        lateral view inline(array(
            named_struct('table_name', table_name, 'is_into', true),
            named_struct('table_name', previous_table_name, 'is_into', false)
        )) named as table_name, is_into
    group by database_name, named.table_name
{%- endmacro %}


{#- The rows of `relation` (changes or DDL of tables), each with `columns` under its table's name
    and incarnation (the rename that gave the name, NULL before any), and again under each name
    the renames after it gave its table (`is_carried`), loaded when the latest of it and those
    renames was: a renamed table's rows go on under its new name. `renames` is
    `table_renames`'; `row_index` as `rename_order`'s. -#}
{% macro through_renames(relation, renames, columns, row_index='row_index') -%}
    select
        {{ qualified_columns(columns, 'placed', {
            'table_name': 'named.table_name',
            'loaded_at': 'greatest(placed.loaded_at, named.loaded_at)',
        }) }},
        named.table_incarnation,
        named.is_carried
    from (
        select
            *,
            concat(
                array(named_struct(
                    'table_name', table_name,
                    'table_incarnation', try_element_at(
                        filter(renamed_into, boundary -> boundary.rename_order < placed_order), -1
                    ).table_incarnation,
                    'loaded_at', cast(null as timestamp),
                    'is_carried', false
                )),
                coalesce(try_element_at(filter(renamed_away, boundary -> boundary.rename_order > placed_order), 1).hops, array())
            ) as names
        from (
            select
                unplaced.*,
                renames.renamed_into,
                renames.renamed_away,
                -- Only a renamed table's rows need a place among its renames.
                if(renames.table_name is null, null, {{ rename_order(row_index) }}) as placed_order
            from {{ relation }} as unplaced
            left join {{ renames }} as renames
                on unplaced.database_name = renames.database_name and unplaced.table_name = renames.table_name
        ) as ordered
    ) as placed
        lateral view inline(names) named as table_name, table_incarnation, loaded_at, is_carried
{%- endmacro %}
