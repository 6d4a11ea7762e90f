{#- `binlog` is "offset@file" (003); the shared position text is "file:offset". NULL when `binlog`
    is not that shape: the position is provenance only, so the row change is still used. -#}
{% macro kafka_river_json_source_position(binlog) -%}
    case
        when {{ binlog }} rlike '^[0-9]+@[^@\\s]+$'
            then regexp_replace({{ binlog }}, '^([0-9]+)@(.+)$', '$2:$1')
    end
{%- endmacro %}


{#- A map of column name (`n`) to `value`, an expression over one element of `columns` named
    `row_column`. Names must be present and distinct (the base model rejects other messages
    first): Spark fails on a NULL or repeated map key. -#}
{% macro kafka_river_json_column_map(columns, value) -%}
    map_from_entries(transform({{ columns }}, row_column -> struct(row_column.n as key, {{ value }} as value)))
{%- endmacro %}
