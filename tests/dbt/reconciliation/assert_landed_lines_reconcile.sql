-- Every landed line of every format is accounted for, file by file: the landing sources (and the
-- binary Avro containers' records, counted like lines) and the reconciliation mart count the same
-- lines. Files that passed in an earlier build are not read again (see data_tests_passed_until):
-- only those modified since the oldest file not passed, as landed_lines_not_loaded reads. A file
-- modified after its load is fct_landed_files' `changed_after_load` (what it holds since is not
-- read), not a failure here: else every build that reads every row would fail on it.
{%- set reconciliation = ref('fct_message_reconciliation') -%}
{%- set passed_until = data_tests_passed_until() -%}
{%- if passed_until is not none -%}
    {%- set passed = 'select file_path from ' ~ reconciliation ~ ' where loaded_at <= timestamp_micros(' ~ passed_until | int ~ ')' -%}
    {%- set since = oldest_landed_file_not_in(var('cdc_formats').keys(), passed) -%}
{%- endif %}

with

landed as (

    select
        counts.source_format,
        counts.file_path,
        counts.landed_at,
        counts.landed_lines
    from ({{ landed_line_counts() }}) as counts
    {%- if passed_until is not none %}
    left anti join ({{ passed }}) as passed on counts.file_path = passed.file_path
    where {{ not_before_micros('counts.landed_at', since) }}
    {%- endif %}

),

reconciled as (

    select
        reconciled.source_format,
        reconciled.file_path,
        reconciled.landed_at,
        reconciled.landed_lines
    from {{ reconciliation }} as reconciled
    where {{ loaded_since_data_tests_passed() }}

)

select
    coalesce(landed.source_format, reconciled.source_format) as source_format,
    coalesce(landed.file_path, reconciled.file_path) as file_path,
    landed.landed_lines,
    reconciled.landed_lines as reconciled_lines
from landed
full outer join reconciled
    on landed.source_format = reconciled.source_format and landed.file_path = reconciled.file_path
where
    not (landed.landed_lines <=> reconciled.landed_lines)
    and not coalesce(landed.landed_at > reconciled.landed_at, false)
