{#- `observations`, each with the `spark_type` of its `source_type`: that of the first rule of
    `mapping` (the seed source_type_spark_types) whose pattern the type matches. A rule's
    `decimal` takes the type's own precision and scale: a decimal wider than Spark's 38 digits
    is a string, so no value is lost, and one without them (OMS and DTS name the type only)
    says nothing (null), leaving the type to other observations. A type no rule matches is a
    string; no type, null. The rules are one array beside each row, not a join of distinct
    types back to the rows: Spark would compute the observations again for that join. -#}
{% macro with_spark_types(observations, mapping) -%}
    select
        typed.observation.*,
        case
            when typed.observation.source_type is null then null
            when typed.rule_type = 'decimal' and typed.precision <= 38
                then format_string('decimal(%d,%d)', typed.precision, least(typed.scale, typed.precision))
            when typed.rule_type = 'decimal' and typed.precision is null then null
            when typed.rule_type = 'decimal' then 'string'
            else coalesce(typed.rule_type, 'string')
        end as spark_type
    from (
        select
            struct(observations.*) as observation,
            try_element_at(
                filter(mapping.rules, rule -> observations.source_type rlike rule.source_type_pattern), 1
            ).spark_type as rule_type,
            try_cast(regexp_extract(observations.source_type, '\\(\\s*(\\d+)', 1) as int) as precision,
            coalesce(try_cast(regexp_extract(observations.source_type, '\\(\\s*\\d+\\s*,\\s*(\\d+)', 1) as int), 0) as scale
        from {{ observations }} as observations
        cross join (
            select array_sort(collect_list(struct(rule_order, source_type_pattern, spark_type))) as rules from {{ mapping }}
        ) as mapping
    ) as typed
{%- endmacro %}


{#- An aggregate: the Spark type that holds every value of a column whose types over time are
    `spark_type`. One type is itself; int and bigint widen to bigint; integers and decimals to a
    decimal with the most integer digits and the largest scale (up to 38 digits); date and
    timestamp to timestamp; anything else (a narrowing to another kind, such as varchar to int)
    to string. A column seen with no type is a string. -#}
{% macro common_spark_type(spark_type) -%}
    {%- set scale = "coalesce(try_cast(regexp_extract(" ~ spark_type ~ ", ',(\\\\d+)\\\\)$', 1) as int), 0)" -%}
    {%- set integer_digits -%}
        case {{ spark_type }} when 'int' then 10 when 'bigint' then 19
        else try_cast(regexp_extract({{ spark_type }}, '^decimal\\((\\d+),', 1) as int) - {{ scale }} end
    {%- endset -%}
    case
        when count(distinct {{ spark_type }}) = 0 then 'string'
        when count(distinct {{ spark_type }}) = 1 then min({{ spark_type }})
        when bool_and({{ spark_type }} in ('int', 'bigint')) then 'bigint'
        when bool_and({{ spark_type }} rlike '^(int|bigint|decimal\\(.*)$') and max({{ integer_digits }}) + max({{ scale }}) <= 38
            then format_string('decimal(%d,%d)', max({{ integer_digits }}) + max({{ scale }}), max({{ scale }}))
        when bool_and({{ spark_type }} in ('date', 'timestamp')) then 'timestamp'
        else 'string'
    end
{%- endmacro %}
