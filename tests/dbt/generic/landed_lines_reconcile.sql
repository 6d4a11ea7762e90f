{#- Every landed line of the format is accounted for, file by file: the reconciliation mart
    counts the same lines as the landing source. An Avro format's binary container files are
    landed by a model (`container_records`, one row per record), counted like lines. Files that
    passed in an earlier build are not read again (see data_tests_passed_until). -#}
{% test landed_lines_reconcile(model, source_format, container_records=none) %}

{%- set reconciliation = ref('fct_message_reconciliation') -%}
{%- set passed_until = data_tests_passed_until() -%}
{%- set passed_files = [] -%}
{%- if passed_until is not none -%}
    {%- set passed_files = run_query(
        'select file_path from ' ~ reconciliation ~ ' where source_format = ' ~ string_literal(source_format)
        ~ ' and loaded_at <= timestamp_micros(' ~ passed_until | int ~ ')'
    ).columns[0].values() -%}
{%- endif %}

with

landed_rows as (

    select file_path from {{ model }} where {{ not_in_literals('file_path', passed_files) }}
    {%- if container_records %}
    union all
    select file_path from {{ container_records }} where {{ not_in_literals('file_path', passed_files) }}
    {%- endif %}

),

landed as (

    select
        file_path,
        count(*) as landed_lines
    from landed_rows
    group by file_path

),

reconciled as (

    select
        file_path,
        landed_lines
    from {{ reconciliation }}
    where source_format = {{ string_literal(source_format) }} and {{ not_in_literals('file_path', passed_files) }}

)

select
    coalesce(landed.file_path, reconciled.file_path) as file_path,
    landed.landed_lines as landed_lines,
    reconciled.landed_lines as reconciled_lines
from landed
full outer join reconciled on landed.file_path = reconciled.file_path
where not (landed.landed_lines <=> reconciled.landed_lines)

{% endtest %}
