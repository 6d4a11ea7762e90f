{#- A Maxwell's daemon message (Maxwell's "Data Format" page): one row change, or one schema change
    with `--output_ddl`. `old` is a row's old values for an update and the table's old definition
    for a `table-alter`, so it is read as an image (a definition's fields as JSON text); `def`
    is the table's definition after a DDL, under the table's new name after a rename (whose
    `table` is the old name). -#}
{% macro maxwell_json_message_schema() -%}
    struct<
        `database`: string,
        `table`: string,
        `type`: string,
        `ts`: bigint,
        `xid`: bigint,
        `xoffset`: bigint,
        `commit`: boolean,
        `position`: string,
        `primary_key_columns`: array<string>,
        `data`: {{ json_image_type() }},
        `old`: {{ json_image_type() }},
        `sql`: string,
        `def`: struct<
            `table`: string,
            `columns`: array<struct<`name`: string, `type`: string, `signed`: boolean, `precision`: int, `scale`: int>>,
            `primary-key`: array<string>
        >,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): a `database`, a `type` and a `ts`, without a
    FlatMessage's fields (which has the three too). -#}
{% macro maxwell_json_shape(keys) -%}
    array_contains({{ keys }}, 'database') and array_contains({{ keys }}, 'type') and array_contains({{ keys }}, 'ts')
        and not arrays_overlap({{ keys }}, array('isDdl', 'es', 'pkNames', 'sqlType', 'mysqlType'))
{%- endmacro %}


{#- Maxwell's `type`s by what they carry: a bootstrap (a snapshot of a table) brackets its
    `bootstrap-insert` rows with a start and a completion marker. -#}
{% macro maxwell_json_event_kind(type) -%}
    case
        when {{ type }} in ('insert', 'update', 'delete', 'bootstrap-insert') then 'row_change'
        when {{ type }} in (
            'table-create', 'table-alter', 'table-drop', 'database-create', 'database-alter', 'database-drop'
        ) then 'schema_change'
        when {{ type }} in ('bootstrap-start', 'bootstrap-complete') then 'control'
    end
{%- endmacro %}


{#- The shared operation of a `type`: a bootstrap row is an INSERT; a `table-alter` that renames
    is a RENAME (Maxwell parses RENAME TABLE as an alter); database DDL is QUERY, as for the
    other formats. Maxwell sends nothing for TRUNCATE or index DDL. -#}
{% macro maxwell_json_operation(type, sql_text) -%}
    case {{ type }}
        when 'insert' then 'INSERT'
        when 'bootstrap-insert' then 'INSERT'
        when 'update' then 'UPDATE'
        when 'delete' then 'DELETE'
        when 'table-create' then 'CREATE'
        when 'table-drop' then 'DROP'
        when 'table-alter' then if({{ ddl_kind_from_sql(sql_text) }} = 'RENAME', 'RENAME', 'ALTER')
        when 'database-create' then 'QUERY'
        when 'database-alter' then 'QUERY'
        when 'database-drop' then 'QUERY'
    end
{%- endmacro %}


{#- A row's place in its transaction (`xid`, and `xoffset`, which the transaction's last row, the
    one with `commit`, does not carry), the same in every copy a restarted Maxwell re-sends; a
    DDL's binlog `position`. NULL for a row without `xoffset` or `commit` (Maxwell run without
    `--output_xoffset`): its identity is then its content. -#}
{% macro maxwell_json_source_coordinates(message, event_kind) -%}
    case
        when {{ event_kind }} = 'schema_change' then nullif({{ message }}.position, '')
        when {{ message }}.xid is not null and ({{ message }}.xoffset is not null or {{ message }}.`commit`)
            then concat_ws(':', 'xid', {{ message }}.xid, coalesce(cast({{ message }}.xoffset as string), 'commit'))
    end
{%- endmacro %}


{#- A DDL's `def` as the shared `tableChanges` entry (002), so that its key and columns serve as
    every format's do: the type the operation says, the columns in order with Maxwell's type
    name (`unsigned` when not `signed`), and the `primary-key`. NULL without a `def` (a drop,
    database DDL). -#}
{% macro maxwell_json_table_change(definition, operation) -%}
    if(
        {{ definition }} is null,
        null,
        named_struct(
            'type', if({{ operation }} = 'CREATE', 'CREATE', 'ALTER'),
            'table', named_struct(
                'columns', transform(
                    {{ definition }}.columns,
                    (table_column, position) -> named_struct(
                        'name', table_column.name,
                        'position', position + 1,
                        'jdbcType', cast(null as int),
                        'typeName', upper(table_column.type),
                        -- An unsigned integer's type says so (`signed` false), as the DDL does.
                        'typeExpression', concat(table_column.type, if(table_column.signed = false, ' unsigned', '')),
                        'length', table_column.precision,
                        'scale', table_column.scale
                    )
                ),
                'primaryKeyColumnNames', {{ definition }}.`primary-key`
            )
        )
    )
{%- endmacro %}
