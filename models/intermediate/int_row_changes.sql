{%- set row_history = ['database_name', 'table_name', 'primary_key'] %}
{%- set arrival_order = 'line_number, message_index, row_index' %}

with

-- The keys each table's DDL gave it, for messages that name none (few rows: broadcast).
table_keys as (

    {{ table_key_versions(ref('int_schema_changes')) }}

),

row_change_messages as (

    select /*+ broadcast(table_keys) */
        messages.*,
        {{ primary_key_columns(
            'messages.key_columns', 'table_keys.primary_key_columns', 'messages.database_name', 'messages.table_name',
        ) }} as primary_key_columns
    from {{ ref('int_messages') }} as messages
    left join table_keys
        on
            messages.database_name = table_keys.database_name
            and messages.table_name = table_keys.table_name
            and coalesce(messages.event_at, messages.emitted_at) >= table_keys.keyed_at
            and (
                table_keys.rekeyed_at is null
                or coalesce(messages.event_at, messages.emitted_at) < table_keys.rekeyed_at
            )
    where messages.disposition = 'row_change'

),

message_rows as (

    select
        row_change_messages.*,
        message_row.pos as row_index,
        message_row.col as row_image
    from row_change_messages
        lateral view posexplode(row_images) message_row as pos, col

),

row_images as (

    select
        *,
        {{ before_image('operation', 'row_image', 'before_images_are_partial') }} as before_image,
        {{ after_image('operation', 'row_image') }} as after_image
    from message_rows

),

identified as (

    select
        *,
        {{ primary_key_json('primary_key_columns', 'before_image', 'after_image') }} as primary_key,
        -- An UPDATE's before image may hold another key: the row moved.
        case
            when operation = 'UPDATE'
                then {{ primary_key_json('primary_key_columns', 'before_image', 'cast(null as map<string, string>)') }}
        end as updated_from_key,
        {{ before_image_source('operation', 'before_image', 'after_image') }} as before_image_source,
        {{ change_identity(
            ['database_name', 'table_name', 'source_operation', 'to_json(row_image)'], 'row_index'
        ) }} as change_identity
    from row_images

),

sequenced as (

    select
        *,
        {{ repeats_previous_change(row_history, arrival_order) }} as repeats_previous_change
    from identified

)

select
    {{ change_id(row_history, arrival_order) }} as change_id,
    source_format,
    database_name,
    table_name,
    operation,
    source_operation,
    is_snapshot,
    primary_key_columns,
    primary_key,
    if(updated_from_key != primary_key, updated_from_key, null) as before_primary_key,
    before_image,
    after_image,
    before_image_source,
    if(before_image_source = 'unknown', null, {{ changed_columns('before_image', 'after_image') }}) as changed_columns,
    column_types,
    column_jdbc_types,
    event_at,
    emitted_at,
    source_position,
    message_id,
    row_index,
    file_path,
    line_number,
    message_index,
    landed_at,
    loaded_at
from sequenced
