{#- A one-row relation holding a seed's `key_column` -> `value_column` pairs as one map column,
    `map_name`: cross-joined into a staging model, a tiny lookup applies per value without a
    join (keys as text). -#}
{% macro lookup_map(seed, key_column, value_column, map_name) -%}
    (
        select map_from_entries(collect_list(struct(cast({{ key_column }} as string), {{ value_column }}))) as {{ map_name }}
        from {{ seed }}
    )
{%- endmacro %}
