{#- The primary keys each table had, from its DDL history: one row per schema change that says
    what the key is (its `tableChanges`, else a CREATE TABLE's or an ALTER TABLE's statement),
    valid from that change's time until the table's next such change. An empty key means the
    DDL gave the table none. -#}
{% macro table_key_versions(schema_changes) -%}
    select
        database_name,
        table_name,
        primary_key_columns,
        keyed_at,
        lead(keyed_at) over (
            partition by database_name, table_name order by keyed_at, landed_at, file_path, line_number, message_index
        ) as rekeyed_at
    from (
        select
            database_name,
            table_name,
            coalesce(
                primary_key_columns,
                {{ ddl_primary_key_columns('sql_text') }},
                if(ddl_kind = 'CREATE' or sql_text rlike '(?i)\\bdrop\\s+primary\\s+key\\b', array(), null)
            ) as primary_key_columns,
            coalesce(event_at, emitted_at) as keyed_at,
            landed_at,
            file_path,
            line_number,
            message_index
        from {{ schema_changes }}
        where table_name is not null and coalesce(event_at, emitted_at) is not null
    ) as key_changes
    where primary_key_columns is not null
{%- endmacro %}


{#- The key columns a CREATE TABLE or ALTER TABLE ... ADD PRIMARY KEY statement names, in its
    `PRIMARY KEY (...)` clause or on one column (`id int PRIMARY KEY`), unquoted; NULL when it
    names none. -#}
{% macro ddl_primary_key_columns(sql) -%}
    case
        when {{ sql }} rlike '(?is)\\bprimary\\s+key\\s*(\\w+\\s*)?\\('
            then transform(
                split(regexp_extract({{ sql }}, '(?is)\\bprimary\\s+key\\s*(?:\\w+\\s*)?\\(((?:[^()]|\\([0-9]+\\))*)\\)', 1), ','),
                key_column -> regexp_replace(trim(key_column), '^[`"]|[`"]?\\s*(\\([0-9]+\\))?(\\s+(?i:asc|desc))?$', '')
            )
        when {{ sql }} rlike '(?is)^\\s*create\\s.*[(,]\\s*[`"]?[^`",\\s()]+[`"]?\\s[^,]*?\\bprimary\\s+key\\b'
            then array(regexp_extract({{ sql }}, '(?is)[(,]\\s*[`"]?([^`",\\s()]+)[`"]?\\s[^,]*?\\bprimary\\s+key\\b', 1))
    end
{%- endmacro %}
