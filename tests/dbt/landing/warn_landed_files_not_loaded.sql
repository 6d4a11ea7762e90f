{{ config(severity='warn') }}

-- A landed file whose lines are not all in the facts (unreadable, changed after it was loaded, or
-- not a landing file by its name) is listed, never silently passed over.
select
    source_format,
    file_path,
    outcome
from {{ ref('fct_landed_files') }}
where outcome != 'loaded'
