-- Every file under each format's landing folder, subfolders included, and what became of it. The
-- folders' listings (registered with the landing sources, not sources themselves: they feed no
-- staging) read no file's content: the cost follows the number of files. A plain table, built
-- every run: the listings are no input dbt knows of.
{{ config(materialized='table') }}
with

listed as (

    {%- for format in var('cdc_formats') %}
        {%- set landing = landing_globs(format) %}
        select
            '{{ format }}' as source_format,
            path as file_path,
            length as file_size,
            modificationTime as modified_at,
            case
                when {{ glob_matches('path', landing.containers) }} then 'container'
                when {{ glob_matches('path', landing.lines or '*') }} then 'lines'
            end as read_as
        from {{ landing_listing_table(landing_source(format, 'landed_lines')) }}
        {{ 'union all' if not loop.last }}
    {%- endfor %}

)

select
    listed.source_format,
    listed.file_path,
    listed.file_size,
    listed.modified_at,
    listed.read_as,
    reconciled.landed_lines,
    case
        when listed.read_as is null then 'not_a_landing_file'
        when reconciled.file_path is null then 'not_loaded'
        when listed.modified_at > reconciled.landed_at then 'changed_after_load'
        else 'loaded'
    end as outcome
from listed
left join {{ ref('fct_message_reconciliation') }} as reconciled
    on listed.source_format = reconciled.source_format and listed.file_path = reconciled.file_path
