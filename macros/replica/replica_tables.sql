{#- Whether `database_name.table_name` matches any of `globs` (`*` any characters, line
    breaks too, `?` one, `{a,b}` either), ignoring case. -#}
{% macro tables_matching(globs) -%}
    {%- if globs -%}
        {%- set regexes = [] -%}
        {%- for glob in globs %}{% do regexes.append(glob_regex(glob)) %}{% endfor -%}
        concat(database_name, '.', table_name) rlike {{ string_literal('(?is)^(' ~ regexes | join('|') ~ ')$') }}
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}


{#- The relation name `names` (`database.table`: name) gives this row's table; null if none. -#}
{% macro replica_name_override(names) -%}
    {%- if names -%}
        case concat(database_name, '.', table_name)
            {%- for table, name in names.items() %}
            when {{ string_literal(table) }} then {{ string_literal(name) }}
            {%- endfor %}
        end
    {%- else -%}
        cast(null as string)
    {%- endif -%}
{%- endmacro %}


{#- The replica relation of a source table, from dim_replica_tables:
    `select * from {{ replica_relation('shop', 'orders') }}`. -#}
{% macro replica_relation(database_name, table_name) -%}
    {#- ref() before the query, so that dbt's parse sees what a caller depends on. -#}
    {%- set listing = ref('dim_replica_tables') -%}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set found = run_query(
        'select replica_schema, replica_name from ' ~ listing
        ~ ' where database_name = ' ~ string_literal(database_name) ~ ' and table_name = ' ~ string_literal(table_name)
    ) -%}
    {%- if found.rows | length == 0 -%}
        {{ exceptions.raise_compiler_error('No replica of ' ~ database_name ~ '.' ~ table_name ~ ' in ' ~ listing) }}
    {%- endif -%}
    {{ return(api.Relation.create(database=listing.database, schema=found[0][0], identifier=found[0][1], type='table')) }}
{%- endmacro %}
