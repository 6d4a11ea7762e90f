{#- A `dbt build` tests what it loaded: its data tests read the rows loaded since the last build
    in which every data test ran and passed (the time that build ended is kept in a table of the
    target schema). `dbt test`, a full refresh and the build after a failed one test every row. -#}
{% macro data_tests_passed_relation() -%}
    {{ return(api.Relation.create(schema=target.schema, identifier='data_tests_passed', type='table')) }}
{%- endmacro %}


{#- When every row loaded before it had passed every data test, as unix microseconds; none when
    this invocation's data tests read every row. Asked once per run (the table changes at its end). -#}
{% macro data_tests_passed_until() -%}
    {%- if not (execute and flags.WHICH == 'build' and not flags.FULL_REFRESH and flags.INTROSPECT is not false) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set passed = data_tests_passed_relation() -%}
    {%- if adapter.get_relation(database=passed.database, schema=passed.schema, identifier=passed.identifier) is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(query_rows_once('select unix_micros(max(passed_until)) from ' ~ passed)[0][0]) }}
{%- endmacro %}


{#- A data test's filter on the rows it reads: those loaded since the data tests last passed. -#}
{% macro loaded_since_data_tests_passed(loaded_at='loaded_at') -%}
    {{- later_than_micros(loaded_at, data_tests_passed_until()) -}}
{%- endmacro %}


{#- on-run-end: after a `dbt build` in which every data test of the project that reads loaded
    rows ran and passed (or warned: a warning reports, it does not fail), every row loaded so far
    has been tested. The seeds' tests read no loaded row: a build may leave them out. -#}
{% macro record_data_tests_passed(results) %}
    {%- if execute and flags.WHICH == 'build' -%}
        {%- set passed = results | selectattr('status', 'in', ['pass', 'warn']) | map(attribute='node.unique_id') | list -%}
        {%- set seeds = graph.nodes.values() | selectattr('resource_type', 'equalto', 'seed') | map(attribute='unique_id') | list -%}
        {%- set data_tests = [] -%}
        {%- for node in graph.nodes.values() if node.resource_type == 'test' -%}
            {%- if node.depends_on.nodes | reject('in', seeds) | list -%}
                {%- do data_tests.append(node.unique_id) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if data_tests | reject('in', passed) | list | length == 0 -%}
            {%- set relation = data_tests_passed_relation() -%}
            {%- do run_query('drop table if exists ' ~ relation) -%}
            {%- do run_query('create table ' ~ relation ~ ' as select current_timestamp() as passed_until') -%}
        {%- endif -%}
    {%- endif -%}
    select 1
{% endmacro %}


{#- What a generic data test's per-row checks read of the model under test: the rows loaded since
    the data tests last passed, if it has `loaded_at`; every row otherwise (views, seeds). -#}
{% macro rows_not_yet_tested() -%}
    {%- set tested = graph.nodes.get(model.attached_node) if model.attached_node else none -%}
    {%- if tested and 'loaded_at' in tested.columns -%}
        {{ return(loaded_since_data_tests_passed()) }}
    {%- endif -%}
    {{ return('true') }}
{%- endmacro %}
