{#- The order in which changes to one row took effect at the source, whatever order they
    landed in (docs/identity-and-order.md), over the columns `ordered_changes` adds: the time
    the change took effect by its lineage (`ordered_at`), its source position (lineage, file
    sequence and offset, as numbers), then arrival order: the landed file (its landing time,
    then its name), line, message in the line and row in the message. The change id comes
    last, for copies of one change only. -#}
{% macro row_change_order(relation=none) -%}
    {{ qualified_columns(['ordered_at'] + place_and_arrival_columns(), relation) }}
{%- endmacro %}


{#- `row_change_order` after `ordered_at`: the source position, then arrival order. -#}
{% macro place_and_arrival_columns() -%}
    {{ return(['source_place', 'landed_at', 'file_path', 'line_number', 'message_index', 'row_index', 'change_id']) }}
{%- endmacro %}


{#- What a row's history is kept by: its table, its key and the table's incarnation (the rename
    that gave the table its name, `through_renames`; NULL where the model follows no renames).
    The key before the incarnation: the windows over a row's history then sort first by what
    `ordered_changes` shuffles the changes by. -#}
{% macro row_identity(relation=none) -%}
    {{ qualified_columns(['database_name', 'table_name', 'primary_key', 'table_incarnation'], relation) }}
{%- endmacro %}


{#- `columns` as a select list, each `<relation>.<column>` where a relation is named, or
    `<expression> as <column>` where `overrides` gives the column an expression. -#}
{% macro qualified_columns(columns, relation=none, overrides={}) -%}
    {%- for column in columns -%}
        {%- if column in overrides -%}
            {{ overrides[column] }} as {{ column }}
        {%- else -%}
            {{ relation ~ '.' if relation }}{{ column }}
        {%- endif -%}
        {{ ', ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}


{#- `changes` with the columns `row_change_order` sorts by. A position orders the changes of
    one lineage (one format's binlog, trail or WAL: `mysql-bin.` of `mysql-bin.000009:1234`,
    `tidb` of TiCDC's TSOs, `lsn` of Postgres's) whatever their clocks say: MySQL stamps a row
    event with its statement's start, and a statement that waited on a lock comes later in the
    binlog with an earlier time. So a change takes effect at the latest event time of its
    lineage up to its position in its row's history (`ordered_at`), and event time orders only
    changes of different lineages or without a position. -#}
{% macro ordered_changes(changes) -%}
    select
        *,
        if(
            source_place is null,
            changed_at,
            max(changed_at) over (
                partition by {{ row_identity() }}, source_place.lineage
                order by {{ qualified_columns(place_and_arrival_columns()) }}
                rows between unbounded preceding and current row
            )
        ) as ordered_at
    from (
        -- One shuffle by the row's table and key, which every window over its history after this
        -- one needs (by incarnation, lineage or life too): without it, Spark shuffled the changes
        -- by lineage for this window, then again by key.
        select /*+ repartition(database_name, table_name, primary_key) */
            *,
            coalesce(event_at, emitted_at) as changed_at,
            {{ source_place('source_format', 'source_position') }} as source_place
        from {{ changes }}
    ) as placed
{%- endmacro %}


{#- A source position `<file>:<offset>` as a struct of its lineage (the format and the file's
    name less its sequence number), the file's sequence number and the offset, numbers compared
    as numbers (mysql-bin.999999 comes before mysql-bin.1000000); NULL without a position. -#}
{% macro source_place(source_format, source_position) -%}
    if({{ source_position }} is null, null, named_struct(
        'lineage', concat_ws('/', {{ source_format }}, regexp_extract(substring_index({{ source_position }}, ':', 1), '^(.*?)[0-9]*$', 1)),
        'file_sequence', try_cast(regexp_extract(substring_index({{ source_position }}, ':', 1), '([0-9]*)$', 1) as decimal(38, 0)),
        'offset', try_cast(substring_index({{ source_position }}, ':', -1) as decimal(38, 0))
    ))
{%- endmacro %}


{#- A change's place in its source: its position, then its time and arrival, as a struct
    (`source_place`, `changed_at`, the arrival columns). What orders the changes of a format
    whose types list every column (`whole_schema`) when their column lists are compared. -#}
{% macro source_order() -%}
    struct(
        {{ source_place('source_format', 'source_position') }} as source_place,
        coalesce(event_at, emitted_at) as changed_at,
        landed_at, file_path, line_number, message_index, row_index
    )
{%- endmacro %}
