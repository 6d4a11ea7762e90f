{#- Whether the target runs Spark 4 or later, whose VARIANT functions the JSON checks use; on
    Spark 3.5 (Databricks LTS runtimes) the JSON macros take their 3.5 form. True when dbt cannot
    ask the target (parsing, `dbt compile --no-introspect`). -#}
{% macro spark_supports_variant() -%}
    {%- if execute and flags.INTROSPECT -%}
        {{ return(adapter.query_value_once('select version()').split('.')[0] | int >= 4) }}
    {%- endif -%}
    {{ return(true) }}
{%- endmacro %}
