{#- An overwritten partition is written whole: its rows that this run does not rebuild keep the
    versions they have. It reads `this`: only dim_row_versions calls it. -#}
{% macro kept_versions(rebuilt_tables, rebuilt_rows) -%}
    -- Semi and anti joins give the left side's columns only: the names are kept's.
    select {{ row_version_columns() }}
    from {{ this }} as kept
    left semi join {{ rebuilt_tables }} as rebuilt_tables
        on kept.database_name <=> rebuilt_tables.database_name and kept.table_name <=> rebuilt_tables.table_name
    left anti join {{ rebuilt_rows }} as rebuilt_rows
        on
            kept.database_name <=> rebuilt_rows.database_name
            and kept.table_name <=> rebuilt_rows.table_name
            and kept.primary_key = rebuilt_rows.primary_key
{%- endmacro %}
