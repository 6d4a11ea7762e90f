{{ config(materialized='incremental', unique_key=['source_format', 'file_path', 'line_number', 'message_index']) }}

select
    source_format,
    file_path,
    line_number,
    message_index,
    disposition_reason as reason,
    payload,
    landed_at,
    loaded_at
from {{ ref('int_messages') }}
where disposition = 'rejected' and {{ loaded_after_this() }}
