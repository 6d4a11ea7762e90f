{#- The column renames and drops ALTER TABLE statements make: one row per column each names,
    with `columns` of its statement, its `change` (RENAME or DROP), `previous_name`,
    `column_name` (the new name; null for a drop) and `changed_at`. MySQL's `CHANGE [COLUMN] a
    b <type>`, and `RENAME COLUMN a TO b` as MySQL 8, Postgres and Oracle spell it; identifiers
    bare, `quoted` or "quoted". The clauses' matches are joined into one array per statement:
    the schema changes are read once. -#}
{% macro column_ddl(schema_changes, columns=['database_name', 'table_name']) -%}
    {%- set name = '[`"]?([^`"\\s,;()]+)[`"]?' -%}
    {%- set clauses = [
        ('RENAME', '(?i)\\brename\\s+column\\s+' ~ name ~ '\\s+to\\s+' ~ name),
        ('RENAME', '(?i)\\bchange\\s+(?:column\\s+)?' ~ name ~ '\\s+' ~ name ~ '\\s+[a-z]'),
        ('DROP', '(?i)\\bdrop\\s+(?:column\\s+)?(?:if\\s+exists\\s+)?(?!(?:index|key|primary|foreign|constraint|partition|check)\\b)' ~ name),
    ] -%}
    select {{ columns | join(', ') }}, named.change, named.previous_name, named.column_name, changed_at
    from (
        select
            {{ columns | join(', ') }},
            concat(
                {%- for change, regex in clauses %}
                transform(
                    regexp_extract_all(sql_text, {{ string_literal(regex) }}, 1),
                    (previous_name, i) -> named_struct(
                        'change', '{{ change }}',
                        'previous_name', previous_name,
                        'column_name', {% if change == 'RENAME' %}regexp_extract_all(sql_text, {{ string_literal(regex) }}, 2)[i]{% else %}cast(null as string){% endif %}
                    )
                ){{ ',' if not loop.last }}
                {%- endfor %}
            ) as names,
            coalesce(event_at, emitted_at) as changed_at
        from {{ schema_changes }}
        where ddl_kind = 'ALTER' and table_name is not null
    ) lateral view explode(names) as named
    where named.change = 'DROP' or named.previous_name != named.column_name
{%- endmacro %}
