{#- Whether the target has the Spark 4 functions the JSON and text checks use (VARIANT's
    `try_parse_json`, `variant_get`, ...): a probe, not a version, since Databricks runtimes from
    15.3 have them while reporting Spark 3.5. Without them the macros take their Spark 3.5 form.
    True when dbt cannot ask the target (parsing, `dbt compile --no-introspect`). -#}
{% macro spark_supports_variant() -%}
    {%- if execute and flags.INTROSPECT -%}
        {%- set functions = [
            'try_parse_json', 'variant_get', 'try_variant_get', 'schema_of_variant', 'try_validate_utf8', 'try_reflect'
        ] -%}
        {%- set found = query_rows_once("show functions like '" ~ functions | join('|') ~ "'") -%}
        {{ return(found | length == functions | length) }}
    {%- endif -%}
    {{ return(true) }}
{%- endmacro %}


{#- The rows of a query whose answer holds for the whole run: asked once per dbt invocation on
    the `sparkpy` adapter, each time on others. -#}
{% macro query_rows_once(sql) -%}
    {%- if adapter.query_rows_once is defined -%}
        {{ return(adapter.query_rows_once(sql)) }}
    {%- endif -%}
    {{ return(run_query(sql).rows | map('list') | list) }}
{%- endmacro %}
