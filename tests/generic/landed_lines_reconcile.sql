{#- Every landed line of the format is accounted for, file by file: the reconciliation mart
    counts the same lines as the landing source. An Avro format's binary container files are
    landed by a model (`container_records`, one row per record), counted like lines. -#}
{% test landed_lines_reconcile(model, source_format, container_records=none) %}

with

landed_rows as (

    select file_path from {{ model }}
    {%- if container_records %}
    union all
    select file_path from {{ container_records }}
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
    from {{ ref('fct_message_reconciliation') }}
    where source_format = {{ string_literal(source_format) }}

)

select
    coalesce(landed.file_path, reconciled.file_path) as file_path,
    landed.landed_lines as landed_lines,
    reconciled.landed_lines as reconciled_lines
from landed
full outer join reconciled on landed.file_path = reconciled.file_path
where not (landed.landed_lines <=> reconciled.landed_lines)

{% endtest %}
