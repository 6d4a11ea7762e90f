{#- The shared schema-change kind of a DDL statement, from its leading words (leading blanks and
    /* */ comments skipped). Any other statement (CREATE DATABASE, CREATE VIEW, ...), or none,
    is QUERY. -#}
{% macro ddl_kind_from_sql(sql_text) -%}
    {%- set statement = "upper(regexp_replace(" ~ sql_text ~ ", '^(?s)(\\\\s|/\\\\*.*?\\\\*/)*', ''))" -%}
    case
        when {{ statement }} rlike '^CREATE\\s+(UNIQUE\\s+|FULLTEXT\\s+|SPATIAL\\s+)?INDEX\\b' then 'CREATE_INDEX'
        when {{ statement }} rlike '^DROP\\s+INDEX\\b' then 'DROP_INDEX'
        when {{ statement }} rlike '^CREATE\\s+(TEMPORARY\\s+)?TABLE\\b' then 'CREATE'
        when {{ statement }} rlike '^ALTER\\s+TABLE\\b' then 'ALTER'
        when {{ statement }} rlike '^DROP\\s+(TEMPORARY\\s+)?TABLE\\b' then 'DROP'
        when {{ statement }} rlike '^RENAME\\s+TABLE\\b' then 'RENAME'
        when {{ statement }} rlike '^TRUNCATE\\b' then 'TRUNCATE'
        else 'QUERY'
    end
{%- endmacro %}
