{#- An AWS DMS record on a Kafka or Kinesis Data Streams target ("Using Apache Kafka as a target
    for AWS Database Migration Service"): `data` the row, `metadata` what and when, `control` a
    control record's details (with IncludeControlDetails: the table's definition, `table-def`),
    and the before image of an update under the field BeforeImageSettings names (its
    `FieldName`, var('aws_dms_before_image_field')). -#}
{% macro aws_dms_json_message_schema() -%}
    struct<
        `data`: {{ json_image_type() }},
        `{{ var('aws_dms_before_image_field') }}`: {{ json_image_type() }},
        `metadata`: struct<
            `timestamp`: string,
            `record-type`: string,
            `operation`: string,
            `schema-name`: string,
            `table-name`: string,
            `transaction-id`: bigint,
            `transaction-record-id`: bigint,
            `commit-timestamp`: string,
            `stream-position`: string
        >,
        `control`: struct<
            `table-def`: struct<
                `columns`: map<string, struct<`type`: string, `length`: int, `precision`: int, `scale`: int>>,
                `primary-key`: array<string>
            >
        >,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): every DMS record has its `metadata`. -#}
{% macro aws_dms_json_shape(keys) -%}
    array_contains({{ keys }}, 'metadata')
{%- endmacro %}


{#- A record's `operation` in one spelling: lower case without hyphens, so that the user
    guide's TruncateTable and DropTable and the drop-table DMS writes read alike. -#}
{% macro aws_dms_json_operation_name(operation) -%}
    lower(replace({{ operation }}, '-', ''))
{%- endmacro %}


{#- What a record carries, by its `record-type` and operation: a data record's load (a full
    load's row), insert, update and delete are row changes; a control record about a source
    table's shape a schema change; any other control record (a task's restart, DMS's own
    `awsdms_` control tables) is skipped. NULL for a record without an operation, an unknown
    data operation or record type. -#}
{% macro aws_dms_json_event_kind(metadata) -%}
    {%- set operation = aws_dms_json_operation_name(metadata ~ '.operation') -%}
    {%- set record_type = metadata ~ '.`record-type`' -%}
    case
        when coalesce({{ operation }}, '') = '' then null
        when {{ record_type }} = 'data' and {{ operation }} in ('load', 'insert', 'update', 'delete') then 'row_change'
        when {{ record_type }} = 'control' and {{ metadata }}.`table-name` like 'awsdms\\_%' then 'control'
        when {{ record_type }} = 'control' and {{ operation }} in (
            'createtable', 'droptable', 'truncatetable', 'renametable',
            'changecolumns', 'addcolumn', 'dropcolumn', 'renamecolumn', 'columntypechange'
        ) then 'schema_change'
        when {{ record_type }} = 'control' then 'control'
    end
{%- endmacro %}


{#- The shared operation: a full load's row is an INSERT (a snapshot read); a table's creation,
    drop, truncation and renaming are CREATE, DROP, TRUNCATE and RENAME; a change of its columns
    (their addition, drop, renaming or new type) is an ALTER. -#}
{% macro aws_dms_json_operation(operation) -%}
    case {{ aws_dms_json_operation_name(operation) }}
        when 'load' then 'INSERT'
        when 'insert' then 'INSERT'
        when 'update' then 'UPDATE'
        when 'delete' then 'DELETE'
        when 'createtable' then 'CREATE'
        when 'droptable' then 'DROP'
        when 'truncatetable' then 'TRUNCATE'
        when 'renametable' then 'RENAME'
        when 'changecolumns' then 'ALTER'
        when 'addcolumn' then 'ALTER'
        when 'dropcolumn' then 'ALTER'
        when 'renamecolumn' then 'ALTER'
        when 'columntypechange' then 'ALTER'
    end
{%- endmacro %}


{#- A change's place in the source's log (IncludeTransactionDetails): its `stream-position`, else
    its transaction and its record's offset in it; the same in every copy DMS re-sends. NULL for a
    full load's row and a control record, which carry neither: their identity is their content. -#}
{% macro aws_dms_json_source_coordinates(metadata) -%}
    coalesce(
        nullif({{ metadata }}.`stream-position`, ''),
        if(
            {{ metadata }}.`transaction-id` is null or {{ metadata }}.`transaction-record-id` is null,
            null,
            concat_ws(':', 'transaction', {{ metadata }}.`transaction-id`, {{ metadata }}.`transaction-record-id`)
        )
    )
{%- endmacro %}


{#- A control record's `table-def` (IncludeControlDetails) as the shared `tableChanges` entry
    (002): its columns in the order sent, with DMS's type name and, where sent, its precision
    and scale or its length (`NUMERIC(10,2)`, `STRING(64)`), and its `primary-key`. A dropped
    table's entry is of type DROP and holds no table, as a `tableChanges` entry of a DROP may; NULL
    for any other control record without a `table-def`. -#}
{% macro aws_dms_json_table_change(definition, operation) -%}
    case
        when {{ definition }} is not null then named_struct(
            'type', case {{ operation }} when 'CREATE' then 'CREATE' when 'DROP' then 'DROP' else 'ALTER' end,
            'table', named_struct(
                'columns', transform(
                    map_entries({{ definition }}.columns),
                    (table_column, position) -> named_struct(
                        'name', table_column.key,
                        'position', position + 1,
                        'jdbcType', cast(null as int),
                        'typeName', upper(table_column.value.type),
                        'typeExpression', concat(
                            table_column.value.type,
                            case
                                when table_column.value.precision is not null
                                    then concat('(', table_column.value.precision, ',', coalesce(table_column.value.scale, 0), ')')
                                when table_column.value.length is not null then concat('(', table_column.value.length, ')')
                                else ''
                            end
                        ),
                        'length', cast(null as int),
                        'scale', cast(null as int)
                    )
                ),
                'primaryKeyColumnNames', {{ definition }}.`primary-key`
            )
        )
        when {{ operation }} = 'DROP' then named_struct('type', 'DROP', 'table', null)
    end
{%- endmacro %}


{#- An ISO-8601 time as DMS writes it (`2024-07-29T00:58:17.983670Z`, microseconds, UTC) as a
    timestamp; NULL when absent, empty or not a time. -#}
{% macro aws_dms_json_timestamp(text) -%}
    try_cast(nullif({{ text }}, '') as timestamp)
{%- endmacro %}
