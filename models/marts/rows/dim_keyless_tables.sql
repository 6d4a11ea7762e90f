-- Tables whose row changes have no key: none in the messages, their DDL or var('cdc_primary_keys').
-- Their changes are in the facts, but no row versions can be built for them.
select
    database_name,
    table_name,
    collect_set(source_format) as source_formats,
    count(*) as row_changes,
    min(coalesce(event_at, emitted_at)) as first_changed_at,
    max(coalesce(event_at, emitted_at)) as last_changed_at
from {{ ref('fct_row_changes') }}
where size(primary_key_columns) = 0
group by database_name, table_name
