{#- An overwritten partition is written whole: its rows that this run does not rebuild keep the
    versions they have. It reads `this`: only dim_row_versions calls it. -#}
{% macro kept_versions(rebuilt_tables, rebuilt_rows) -%}
    select
        kept.database_name,
        kept.table_name,
        kept.primary_key,
        kept.row_image,
        kept.valid_from,
        kept.valid_to,
        kept.is_current,
        kept.opened_by_change_id,
        kept.opened_by_operation,
        kept.closed_by_change_id,
        kept.closed_by_operation,
        kept.change_number,
        kept.loaded_at
    from {{ this }} as kept
    left semi join {{ rebuilt_tables }} as rebuilt_tables
        on kept.database_name <=> rebuilt_tables.database_name and kept.table_name <=> rebuilt_tables.table_name
    left anti join {{ rebuilt_rows }} as rebuilt_rows
        on
            kept.database_name <=> rebuilt_rows.database_name
            and kept.table_name <=> rebuilt_rows.table_name
            and kept.primary_key = rebuilt_rows.primary_key
{%- endmacro %}
