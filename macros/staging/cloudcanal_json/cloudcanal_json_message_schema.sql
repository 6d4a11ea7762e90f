{#- The CloudCanal Json message (002, "CloudCanal Json"). -#}
{% macro cloudcanal_json_message_schema() -%}
    struct<
        `action`: string,
        `bid`: bigint,
        `before`: array<{{ json_image_type() }}>,
        `data`: array<{{ json_image_type() }}>,
        `db`: string,
        `schema`: string,
        `table`: string,
        `dbValType`: map<string, string>,
        `jdbcType`: map<string, int>,
        `entryType`: string,
        `isDdl`: boolean,
        `pks`: array<string>,
        `execTs`: bigint,
        `sendTs`: bigint,
        `sql`: string,
        `tableChanges`: {{ table_changes_schema() }},
        `_corrupt_record`: string
    >
{%- endmacro %}
