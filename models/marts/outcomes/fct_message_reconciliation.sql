{{ config(materialized='incremental', unique_key=['source_format', 'file_path']) }}
{%- set new_rows = loaded_after_this() %}
{#- Each change counts once, each change the facts keep from the file takes one back. -#}
{%- set counted = [
    ('int_row_changes_labelled', 1), ('fct_row_changes', -1), ('int_schema_changes', 1), ('fct_schema_changes', -1),
] %}

-- A file is loaded whole, once, so each new file's counts are final.
with

outcomes as (

    select
        source_format,
        file_path,
        count(distinct line_number) as landed_lines,
        count(*) as messages,
        count_if(disposition = 'row_change') as row_change_messages,
        count_if(disposition = 'schema_change') as schema_change_messages,
        count_if(disposition = 'skipped') as skipped_messages,
        count_if(disposition = 'rejected') as rejected_messages,
        max(landed_at) as landed_at,
        max(loaded_at) as loaded_at
    from {{ ref('int_messages') }}
    where {{ new_rows }}
    group by source_format, file_path

),

-- The file's changes less those the facts keep from it: copies of changes landed before.
redeliveries as (

    select
        source_format,
        file_path,
        sum(copies) as redelivered_changes
    from (
        {%- for changes, copies in counted %}
            select
                source_format,
                file_path,
                {{ copies }} as copies
            from {{ ref(changes) }}
            where {{ new_rows }}
            {{ 'union all' if not loop.last }}
        {%- endfor %}
    ) as changes
    group by source_format, file_path

)

select
    outcomes.source_format,
    outcomes.file_path,
    outcomes.landed_lines,
    outcomes.messages,
    outcomes.row_change_messages,
    outcomes.schema_change_messages,
    outcomes.skipped_messages,
    outcomes.rejected_messages,
    coalesce(redeliveries.redelivered_changes, 0) as redelivered_changes,
    outcomes.landed_at,
    outcomes.loaded_at
from outcomes
left join redeliveries
    on outcomes.source_format = redeliveries.source_format and outcomes.file_path = redeliveries.file_path
