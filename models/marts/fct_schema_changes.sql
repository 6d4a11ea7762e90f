{{ config(materialized='incremental', unique_key='change_id') }}

with

new_changes as (

    select * from {{ ref('int_schema_changes_unioned') }}
    where {{ loaded_after_this() }}

),

-- An exact redelivery repeats a change_id; the first landed copy wins, by landing time, so a
-- copy landed after a run is dropped by the next incremental run as by a full refresh.
landed_copies as (

    select
        *,
        row_number() over (
            partition by change_id order by landed_at, file_path, line_number, message_index
        ) as landed_copy
    from new_changes

),

first_copies as (

    select * from landed_copies
    where landed_copy = 1

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
from first_copies
{%- if incremental_run() %}
-- A change the fact already holds came in an earlier copy.
left anti join {{ this }} as facts on first_copies.change_id = facts.change_id
{%- endif %}
