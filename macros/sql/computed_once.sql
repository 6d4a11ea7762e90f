{#- `query` as a CTE body that Spark computes once, however many readers the CTE has. Spark
    inlines a deterministic CTE into each reader and computes it again for each; one that is not
    deterministic it computes once and each reader reads the result. A filter that keeps every
    row (`rand()` is below 1) makes it so. For a CTE read more than once whose inputs are large
    and whose rows are few (a table's column drops, found among all its row changes). Build a
    new use once: Spark 4.0 failed to plan one such CTE read by three semi joins
    (`PLAN_VALIDATION_FAILED_RULE_IN_BATCH`, docs/performance.md). -#}
{% macro computed_once(query) -%}
    select * from ({{ query }}) as computed_once where rand() < 1
{%- endmacro %}
