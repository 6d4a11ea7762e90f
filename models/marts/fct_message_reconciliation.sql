{{ config(materialized='incremental', unique_key=['source_format', 'file_path']) }}

-- A file is loaded whole, once, so each new file's counts are final.
select
    source_format,
    file_path,
    count(distinct line_number) as landed_lines,
    count(*) as messages,
    count_if(disposition = 'row_change') as row_change_messages,
    count_if(disposition = 'schema_change') as schema_change_messages,
    count_if(disposition = 'skipped') as skipped_messages,
    count_if(disposition = 'rejected') as rejected_messages,
    max(loaded_at) as loaded_at
from {{ ref('int_messages') }}
where {{ loaded_after_this() }}
group by source_format, file_path
