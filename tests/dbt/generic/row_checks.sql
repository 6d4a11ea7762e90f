{#- Every check of a model's rows in one query, one row (check, failing_rows) per failing check:
    `not_null` columns, `accepted_values` ({column: values}; NULL passes, as in dbt's test),
    `relationships` ([{column, to, field, where}]: every non-NULL value is one of `to`'s
    `field`, of the rows `where`, a condition, holds for where given) and
    `unique` keys (lists of columns; NULLs compare equal). The per-row checks are one scan of the
    rows a build has not tested yet (`rows_not_yet_tested`); a key is checked where those rows
    hold it, against every row of the model. -#}
{% test row_checks(model, not_null=[], accepted_values={}, relationships=[], unique=[]) %}
{%- set untested = rows_not_yet_tested() -%}
{%- set per_row = [] -%}
{%- for column in not_null -%}
    {%- do per_row.append(('not_null ' ~ column, column ~ ' is null')) -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
    {%- set literals = [] -%}
    {%- for value in values -%}
        {%- do literals.append(value if value is number else "'" ~ value ~ "'") -%}
    {%- endfor -%}
    {%- do per_row.append(('accepted_values ' ~ column, column ~ ' not in (' ~ literals | join(', ') ~ ')')) -%}
{%- endfor -%}
{%- set checks = [] -%}
{%- if per_row -%}
    {%- set check -%}
    select stack({{ per_row | length }}
        {%- for name, failing in per_row %}, '{{ name }}', failing_{{ loop.index }}{% endfor %}) as (check, failing_rows)
    from (
        select
        {%- for name, failing in per_row %}
            count_if({{ failing }}) as failing_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
        from untested
    )
    {%- endset -%}
    {%- do checks.append(check) -%}
{%- endif -%}
{%- for relationship in relationships -%}
    {%- set check -%}
    select 'relationships {{ relationship.column }}' as check, count(*) as failing_rows
    from untested
    left anti join {{ relationship.to }} as parent
        on untested.{{ relationship.column }} = parent.{{ relationship.field }}
    where untested.{{ relationship.column }} is not null{{ ' and (' ~ relationship.where ~ ')' if relationship.where }}
    {%- endset -%}
    {%- do checks.append(check) -%}
{%- endfor -%}
{%- for key in unique -%}
    {%- set key_columns -%}
        {%- for column in key %}{{ column }} as key_{{ loop.index }}{{ ', ' if not loop.last }}{% endfor -%}
    {%- endset -%}
    {%- set check -%}
    select 'unique {{ key | join(", ") }}' as check, count(*) as failing_rows
    from (
        select 1
        from (select {{ key_columns }} from tested) as keys
        {%- if untested != 'true' %}
        left semi join (select {{ key_columns }} from untested) as new_keys
            on {% for column in key %}keys.key_{{ loop.index }} <=> new_keys.key_{{ loop.index }}{{ ' and ' if not loop.last }}{% endfor %}
        {%- endif %}
        group by {% for column in key %}key_{{ loop.index }}{{ ', ' if not loop.last }}{% endfor %}
        having count(*) > 1
    )
    {%- endset -%}
    {%- do checks.append(check) -%}
{%- endfor %}

with tested as (
    select * from {{ model }}
),

untested as (
    select * from tested where {{ untested }}
),

checks as (
    {{ checks | join('\n\n    union all\n\n    ') }}
)

select check, failing_rows
from checks
where failing_rows > 0

{% endtest %}
