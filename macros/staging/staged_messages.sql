{#- Every format's last step, called around its spelling: a select giving the contract's
    columns (`format_spelling`) over the parsed messages (`json_messages`' columns). Checks the
    contract, classifies every message by one rejection ladder and gives its load time. What
    comes after staging is the same for every format. -#}
{% macro staged_messages(source_format) -%}
{%- set spelling = caller() -%}
{{ check_format_spelling(source_format, spelling) -}}
select
    '{{ source_format }}' as source_format,
    file_path,
    line_number,
    message_index,
    landed_at,
    {{ load_time() }} as loaded_at,
    payload,
    message_json,
    case
        when rejection_reason is not null then 'rejected'
        when event_kind = 'control' then 'skipped'
        else event_kind
    end as disposition,
    coalesce(rejection_reason, if(event_kind = 'control', skip_reason, null)) as disposition_reason,
    {%- for column in staged_message_columns()[10:] %}
    {%- if column == 'row_images' %}
    -- The rows of a usable row change only.
    if(rejection_reason is null and event_kind = 'row_change', row_images, null) as row_images,
    {%- else %}
    {{ column }}{{ ',' if not loop.last }}
    {%- endif %}
    {%- endfor %}
from (
    select
        *,
        {{ message_rejection_reason() }} as rejection_reason
    from ({{ spelling }})
)
{%- endmacro %}


{#- The contract a format fills: the columns its spelling gives, by the hook each belongs to.
    Most are staged (`staged_message_columns`); the rest feed the rejection ladder only. -#}
{% macro format_spelling() -%}
    {{ return({
        'event kind': ['event_kind', 'skip_reason', 'source_operation', 'operation', 'is_snapshot'],
        'table': ['database_name', 'table_name'],
        'time': ['event_at', 'emitted_at'],
        'position': ['source_position', 'source_coordinates', 'message_id', 'transaction_id'],
        'keys': ['key_columns'],
        'images': ['row_images', 'before_images_are_partial', 'old_images_expected'],
        'schema': ['column_types', 'column_jdbc_types', 'sql_text', 'table_change'],
        'rejection': ['format_rejection_reason', 'image_rejection_reason'],
    }) }}
{%- endmacro %}


{#- The shared shape of a staged message, in order: where it landed, what became of it, and what
    it says (the contract's staged columns). The intermediate models stack every format's staging
    by these names. -#}
{% macro staged_message_columns() -%}
    {%- set ladder_only = [
        'event_kind', 'skip_reason', 'old_images_expected', 'format_rejection_reason', 'image_rejection_reason'
    ] -%}
    {{ return([
        'source_format', 'file_path', 'line_number', 'message_index', 'landed_at', 'loaded_at',
        'payload', 'message_json', 'disposition', 'disposition_reason',
    ] + (format_spelling().values() | sum(start=[]) | reject('in', ladder_only) | list)) }}
{%- endmacro %}


{#- Fails compilation naming every column of the contract a format's spelling does not give. -#}
{% macro check_format_spelling(source_format, spelling) -%}
    {%- set given = select_aliases(spelling) -%}
    {%- set missing = [] -%}
    {%- for hook, columns in format_spelling().items() -%}
        {%- for column in columns if column not in given -%}
            {%- do missing.append(column ~ ' (' ~ hook ~ ')') -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            "The spelling of " ~ source_format ~ " does not give: " ~ missing | join(', ')
        ) }}
    {%- endif -%}
{%- endmacro %}


{#- The names a select gives with `as`, its own or its subqueries' (a spelling is a chain of
    `select *, ...`), leaving out its string literals and comments (each made an empty literal:
    one pass from the left, so a `--` inside a literal stays in it). -#}
{% macro select_aliases(select) -%}
    {%- set code = modules.re.sub("'(?:[^'\\\\]|\\\\.)*'|--[^\n]*", "''", select) -%}
    {{ return(modules.re.findall("(?i)\\bas\\s+(\\w+)", code)) }}
{%- endmacro %}


{#- One ladder for every format: the first reason that applies, NULL for a usable message.
    What the format judges itself (its JSON, its envelope, its images) comes at fixed rungs. -#}
{% macro message_rejection_reason() -%}
    coalesce(
        parse_rejection_reason,
        format_rejection_reason,
        case
            when event_kind = 'control' then null
            when event_kind is null and coalesce(source_operation, '') = '' then 'missing_event_type'
            when event_kind is null then 'unknown_event_type'
            when {{ is_implausible_time('event_at') }} or {{ is_implausible_time('emitted_at') }} then 'implausible_timestamp'
            when database_name is null then 'missing_database'
            when {{ partition_folder_too_long('database_name') }} or {{ partition_folder_too_long('table_name') }}
                then 'name_too_long'
            -- A DDL message carries its statement, or the table's change it made (`table_change`:
            -- AWS DMS sends no statement); a TRUNCATE's kind is known without either.
            when
                event_kind = 'schema_change' and sql_text is null and table_change is null and coalesce(operation, '') != 'TRUNCATE'
                then 'missing_sql'
            when event_kind = 'schema_change' then null
            when table_name is null then 'missing_table'
            when image_rejection_reason is not null then image_rejection_reason
            -- No source allows an empty column name, and a replica could not have one.
            when exists(row_images, row_image -> map_contains_key(row_image.before_image, '') or map_contains_key(row_image.after_image, ''))
                then 'empty_column_name'
            when
                {{ array_size('row_images') }} = 0
                or exists(
                    row_images,
                    row_image -> {{ map_size("if(operation = 'DELETE', row_image.before_image, row_image.after_image)") }} = 0
                )
                then 'missing_row_image'
            -- Unless the source may send an UPDATE without its old image: its before image is then unknown.
            when operation = 'UPDATE' and old_images_expected and exists(row_images, row_image -> row_image.before_image is null)
                then 'missing_old_image'
        end
    )
{%- endmacro %}


{#- A time outside var('cdc_plausible_times'): a clock in a unit the magnitude misreads (seconds
    of the year 9999 read as milliseconds of 1978), or a producer's bug. NULL (unknown) passes. -#}
{% macro is_implausible_time(time) -%}
    {%- set plausible = var('cdc_plausible_times') -%}
    coalesce(
        {{ time }} < timestamp {{ string_literal(plausible['from']) }}
        or {{ time }} >= timestamp {{ string_literal(plausible['until']) }},
        false
    )
{%- endmacro %}


{#- A name whose partition folder of dim_row_versions (`<column>=<name>`, UTF-8, with the
    characters Spark escapes as %XX) would exceed the 255 bytes a file system allows in a name.
    The names sources allow (MySQL: 64 characters, Oracle: 128 bytes) fit unless made mostly of
    those characters. -#}
{% macro partition_folder_too_long(column) -%}
    coalesce(
        octet_length('{{ column }}=') + octet_length({{ column }})
        + 2 * (length({{ column }}) - length(regexp_replace({{ column }}, '[\\x01-\\x1F\\x7F"#%\'*/:=?\\\\{\\[\\]^]', '')))
        > 255,
        false
    )
{%- endmacro %}
