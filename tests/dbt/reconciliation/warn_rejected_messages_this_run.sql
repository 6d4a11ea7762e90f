{{ config(severity='warn') }}

-- Messages this run rejected, by format and reason: a build that rejects any says so in dbt's
-- own summary (the rows, with their payloads, are in fct_rejected_messages).
select
    source_format,
    reason,
    count(*) as rejected_messages
from {{ ref('fct_rejected_messages') }}
where {{ loaded_this_run() }}
group by source_format, reason
