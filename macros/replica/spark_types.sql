{#- (source_type, spark_type) for every distinct `source_type` of `observations`: the first rule
    of `mapping` (the seed source_type_spark_types) whose pattern the type matches. A rule's
    `decimal` takes the type's own precision and scale: a decimal wider than Spark's 38 digits
    is a string, so no value is lost, and one without them (OMS and DTS name the type only)
    says nothing (null), leaving the type to other observations. A type no rule matches is a
    string. -#}
{% macro spark_types_of_source_types(observations, mapping) -%}
    select
        source_type,
        case
            when spark_type = 'decimal' and precision <= 38 then format_string('decimal(%d,%d)', precision, least(scale, precision))
            when spark_type = 'decimal' and precision is null then null
            when spark_type = 'decimal' then 'string'
            else coalesce(spark_type, 'string')
        end as spark_type
    from (
        select
            source_types.source_type,
            min_by(mapping.spark_type, mapping.rule_order) as spark_type,
            try_cast(regexp_extract(source_types.source_type, '\\(\\s*(\\d+)', 1) as int) as precision,
            coalesce(try_cast(regexp_extract(source_types.source_type, '\\(\\s*\\d+\\s*,\\s*(\\d+)', 1) as int), 0) as scale
        from (select distinct source_type from {{ observations }} where source_type is not null) as source_types
        left join {{ mapping }} as mapping on source_types.source_type rlike mapping.source_type_pattern
        group by source_types.source_type
    )
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
