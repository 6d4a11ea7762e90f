-- A load may bring no rejected message: the table keeps the newest load it has read.
{{ config(
    materialized='incremental',
    unique_key=['source_format', 'file_path', 'line_number', 'message_index'],
    meta={'keeps_loaded_through': true},
) }}

select
    source_format,
    file_path,
    line_number,
    message_index,
    disposition_reason as reason,
    {{ likely_format('source_format', 'message_keys') }} as likely_format,
    payload,
    landed_at,
    loaded_at
from (
    select *, {{ json_top_level_keys('message_json') }} as message_keys
    from {{ ref('int_messages') }}
    where disposition = 'rejected' and {{ loaded_after_this() }}
)
