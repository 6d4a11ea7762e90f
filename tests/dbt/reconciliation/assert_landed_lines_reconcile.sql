-- Every landed line of every format is accounted for, file by file: the landing sources (and the
-- binary Avro containers' records, counted like lines) and the reconciliation mart count the same
-- lines. Files that passed in an earlier build are not read again (see data_tests_passed_until).
{%- set reconciliation = ref('fct_message_reconciliation') -%}
{%- set passed_until = data_tests_passed_until() -%}
{%- set passed_files = [] -%}
{%- if passed_until is not none -%}
    {%- set passed_files = run_query(
        'select file_path from ' ~ reconciliation ~ ' where loaded_at <= timestamp_micros(' ~ passed_until | int ~ ')'
    ).columns[0].values() -%}
{%- endif %}

with

landed as (

    select *
    from ({{ landed_line_counts() }})
    where {{ not_in_literals('file_path', passed_files) }}

),

reconciled as (

    select
        source_format,
        file_path,
        landed_lines
    from {{ reconciliation }}
    where {{ not_in_literals('file_path', passed_files) }}

)

select
    coalesce(landed.source_format, reconciled.source_format) as source_format,
    coalesce(landed.file_path, reconciled.file_path) as file_path,
    landed.landed_lines,
    reconciled.landed_lines as reconciled_lines
from landed
full outer join reconciled
    on landed.source_format = reconciled.source_format and landed.file_path = reconciled.file_path
where not (landed.landed_lines <=> reconciled.landed_lines)
