{#- No two rows share the same values in all of `columns` (NULLs compare equal). -#}
{% test unique_combination(model, columns) %}

select
    {{ columns | join(', ') }},
    count(*) as rows_sharing_them
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1

{% endtest %}
