{#- The first on-run-start hook: what the user passed is checked before any work. A var named
    on the command line must be one of the project's (a typo would otherwise be ignored, and its
    default used), and a command that loads or tests data needs a landing root: the project has
    no default one, so the bundled samples are never loaded by mistake (`make demo` names them).
    The landing root's folders are checked where they are defined (`create_landing_tables`). -#}
{% macro check_run_inputs() %}
    {%- if execute -%}
        {%- for name in invocation_args_dict.get('vars') or {} if name not in project_var_names() -%}
            {%- set closest = closest_name(name, project_var_names()) -%}
            {{ exceptions.raise_compiler_error('Unknown var `' ~ name ~ '`'
                ~ ('; did you mean `' ~ closest ~ '`?' if closest else '.')
                ~ ' The project\'s vars: ' ~ project_var_names() | join(', ') ~ ' (dbt_project.yml).') }}
        {%- endfor -%}
        {%- if not var('landing_root') and not kafka_landing() and flags.WHICH in ('build', 'run', 'test', 'seed', 'snapshot') -%}
            {{ exceptions.raise_compiler_error('No landing root: pass --vars \'{landing_root: <folder>}\' or set'
                ~ ' CDC_LANDING_ROOT (the folder holding one folder per format; `make demo` passes samples/landing).') }}
        {%- endif -%}
    {%- endif -%}
    select 1
{% endmacro %}


{#- The vars of dbt_project.yml (a unit test keeps the two lists equal). -#}
{% macro project_var_names() -%}
    {{ return([
        'landing_root', 'landing_source', 'kafka_bootstrap_servers', 'kafka_topics', 'kafka_options',
        'kafka_checkpoint_root', 'kafka_schema_registry_url', 'cdc_formats', 'cdc_change_identity', 'cdc_plausible_times', 'cdc_primary_keys',
        'debezium_unavailable_value_placeholder', 'aws_dms_before_image_field', 'replicas',
    ]) }}
{%- endmacro %}


{#- The one of `names` closest to `name` by their pairs of letters in common (Dice's
    coefficient), if it is close at all (at least half); none otherwise. -#}
{% macro closest_name(name, names) -%}
    {%- set best = {'name': none, 'score': 0.5} -%}
    {%- for candidate in names -%}
        {%- set pairs = [] -%}
        {%- for i in range(candidate | length - 1) %}{% do pairs.append(candidate[i:i + 2]) %}{% endfor -%}
        {%- set shared = [] -%}
        {%- for i in range(name | length - 1) if name[i:i + 2] in pairs -%}
            {%- do pairs.remove(name[i:i + 2]) -%}
            {%- do shared.append(name[i:i + 2]) -%}
        {%- endfor -%}
        {%- set score = 2 * shared | length / ([name | length + candidate | length - 2, 1] | max) -%}
        {%- if score >= best.score -%}
            {%- do best.update({'name': candidate, 'score': score}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(best.name) }}
{%- endmacro %}
