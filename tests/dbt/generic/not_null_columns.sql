{#- None of `columns` holds a NULL, checked in one scan of the model (a `not_null` test per
    column scans it once each). Fails with each column that holds NULLs and how many. -#}
{% test not_null_columns(model, columns) %}

with null_counts as (
    select
        {%- for column in columns %}
        count_if({{ column }} is null) as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ model }}
)

select
    column_name,
    null_rows
from null_counts
unpivot (null_rows for column_name in ({{ columns | join(', ') }}))
where null_rows > 0

{% endtest %}
