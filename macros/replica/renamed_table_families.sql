{#- The table names each database's renames ever gave or took, as {database_name: [names]}, in
    name order (a null database_name as ''). A rename carries rows from one name to the next, so
    a change under any of them can touch the rows under the others. Read once per run. -#}
{% macro renamed_table_families(schema_changes) -%}
    {%- set query -%}
        select coalesce(database_name, ''), to_json(array_sort(collect_set(renamed_table_name)))
        from {{ schema_changes }}
            lateral view explode(array(table_name, previous_table_name)) names as renamed_table_name
        where previous_table_name is not null
        group by 1
    {%- endset -%}
    {%- set families = {} -%}
    {%- for database_name, table_names in query_rows_once(query) -%}
        {%- do families.update({database_name: fromjson(table_names)}) -%}
    {%- endfor -%}
    {{ return(families) }}
{%- endmacro %}
