{#- Every landed line of the format is accounted for, file by file: the reconciliation mart
    counts the same lines as the landing source. -#}
{% test landed_lines_reconcile(model, source_format) %}

with

landed as (

    select
        file_path,
        count(*) as landed_lines
    from {{ model }}
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
