{{ config(materialized='incremental', unique_key='change_id') }}

with

new_changes as (

    {{ new_first_landed_changes(ref('int_schema_changes')) }}

)

select
    change_id,
    source_format,
    database_name,
    table_name,
    ddl_kind,
    source_operation,
    sql_text,
    table_columns,
    primary_key_columns,
    event_at,
    emitted_at,
    source_position,
    message_id,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from new_changes
