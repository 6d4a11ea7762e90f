{#- The name a RENAME gave `table_name` its new name from: of a RENAME TABLE, the `a TO b`
    whose `b` is the table (a statement may rename many, one message per table); of an ALTER
    TABLE, its `RENAME TO` or `RENAME AS`. Names bare, `quoted` or "quoted", with their database
    or without (the database is taken to stay the same). NULL for any other statement. -#}
{% macro previous_table_name(sql_text, table_name) -%}
    {%- set name = '(?:[`"]?[^`"\\s,;().]+[`"]?\\.)?[`"]?([^`"\\s,;().]+)[`"]?' -%}
    {%- set renames = [
        '(?i)(?:\\brename\\s+tables?\\s+|,\\s*)' ~ name ~ '\\s+to\\s+' ~ name,
        '(?i)\\balter\\s+table\\s+(?:if\\s+exists\\s+)?(?:only\\s+)?' ~ name ~ '\\s+rename\\s+(?:to|as)\\s+' ~ name,
    ] -%}
    try_element_at(
        filter(
            concat(
                {%- for regex in renames %}
                transform(
                    regexp_extract_all({{ sql_text }}, {{ string_literal(regex) }}, 2),
                    (new_name, i) -> named_struct(
                        'previous_name', regexp_extract_all({{ sql_text }}, {{ string_literal(regex) }}, 1)[i],
                        'new_name', new_name
                    )
                ){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            rename -> lower(rename.new_name) = lower({{ table_name }}) and lower(rename.previous_name) != lower({{ table_name }})
        ),
        1
    ).previous_name
{%- endmacro %}
