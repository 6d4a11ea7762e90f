-- A table, unlike the other intermediate models: schema changes are few, and int_row_changes reads
-- all of them for the tables' keys, which over a view would scan every staged message each run.
-- A load may bring no DDL: the table keeps the newest load it has read, so that a run reads only
-- the messages loaded since, not all of those since the last DDL.
{{ config(
    materialized='incremental',
    unique_key=['file_path', 'line_number', 'message_index'],
    meta={'keeps_loaded_through': true},
) }}

select
    {{ change_id(['database_name', 'table_name']) }} as change_id,
    source_format,
    database_name,
    table_name,
    operation as ddl_kind,
    source_operation,
    sql_text,
    {{ previous_table_name('sql_text', 'table_name') }} as previous_table_name,
    transform(
        table_change.table.columns,
        table_column -> struct(
            table_column.name as column_name,
            table_column.position as ordinal_position,
            {{ table_column_type('table_column') }} as column_type,
            table_column.jdbcType as jdbc_type
        )
    ) as table_columns,
    table_change.table.primaryKeyColumnNames as primary_key_columns,
    event_at,
    emitted_at,
    source_position,
    message_id,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from (
    select
        *,
        {{ repeats_previous_change(['database_name', 'table_name']) }} as repeats_previous_change
    from (
        select
            *,
            -- A DDL without a statement (AWS DMS's control records) says what it did by the table it left.
            {{ change_identity(
                ['database_name', 'table_name', 'source_operation', 'coalesce(sql_text, to_json(table_change))']
            ) }} as change_identity
        from {{ ref('int_messages') }}
        where disposition = 'schema_change' and {{ loaded_after_this() }}
    ) as identified
) as schema_changes
