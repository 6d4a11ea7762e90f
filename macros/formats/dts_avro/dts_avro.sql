{#- The Aliyun DTS Avro `Record` (the DTS subscribe SDK's schema, src/cdc_lakehouse/avro/schemas/
    dts_avro.avsc) in Avro's JSON encoding: unions are null or wrapped as {"<type name>": value},
    bytes are strings of code points U+0000-U+00FF. Only the fields the staging reads are typed;
    an image value (one union branch of Integer, Character, Decimal, ...) is read whole. -#}
{% macro dts_avro_message_schema() -%}
    {%- set image = 'struct<`string`: string, `array`: array<map<string, ' ~ json_value_type() ~ '>>>' -%}
    struct<
        `version`: int,
        `id`: bigint,
        `sourceTimestamp`: bigint,
        `sourcePosition`: string,
        `safeSourcePosition`: string,
        `sourceTxid`: string,
        `source`: struct<`sourceType`: string, `version`: string>,
        `operation`: string,
        `objectName`: struct<`string`: string>,
        `processTimestamps`: struct<`array`: array<bigint>>,
        `tags`: map<string, string>,
        `fields`: struct<`string`: string, `array`: array<struct<`name`: string, `dataTypeNumber`: int>>>,
        `beforeImages`: {{ image }},
        `afterImages`: {{ image }},
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the DTS Record's own field names. -#}
{% macro dts_avro_shape(keys) -%}
    arrays_overlap({{ keys }}, array('objectName', 'sourcePosition', 'safeSourcePosition', 'sourceTxid'))
{%- endmacro %}


{#- The Operation enum by what it carries; every other symbol is transaction or stream control. -#}
{% macro dts_avro_event_kind(operation) -%}
    case
        when {{ operation }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ operation }} = 'DDL' then 'schema_change'
        when {{ operation }} in (
            'BEGIN', 'COMMIT', 'ROLLBACK', 'ABORT', 'HEARTBEAT', 'CHECKPOINT', 'COMMAND', 'FILL', 'FINISH',
            'CONTROL', 'RDB', 'NOOP', 'INIT'
        ) then 'control'
    end
{%- endmacro %}


{#- A union of the record under a branch its schema lacks: `from_json` would read it as the
    null branch. Each union and the branches (last name segments) it may hold. -#}
{% macro dts_avro_unknown_union_branch(json) -%}
    {%- set unions = {
        'objectName': ['string'], 'processTimestamps': ['array'], 'fields': ['string', 'array'],
        'beforeImages': ['string', 'array'], 'afterImages': ['string', 'array'],
    } -%}
    {%- set fields = [] -%}
    {%- for union in unions %}{% do fields.append('`' ~ union ~ '`: map<string, string>') %}{% endfor -%}
    {%- set parsed = "from_json(" ~ json ~ ", 'struct<" ~ fields | join(', ') ~ ">')" -%}
    (
        {%- for union, branches in unions.items() %}
        {{ 'or ' if not loop.first }}coalesce(
            {{ parsed }}.{{ union }} is not null and (
                size({{ parsed }}.{{ union }}) != 1
                or try_element_at(map_keys({{ parsed }}.{{ union }}), 1) not in ('{{ branches | join("', '") }}')
            ),
            false
        )
        {%- endfor %}
    )
{%- endmacro %}


{#- One image value, a union branch as map<branch name, value>, as struct<item, branch (the type
    name's last segment), value (the branch's value), raw (its `value` field as text)>: worked out
    once per value, as lambdas are evaluated without common subexpressions. -#}
{% macro dts_avro_union_branch(item) -%}
    named_struct(
        'item', {{ item }},
        'branch', regexp_extract(try_element_at(map_keys({{ item }}), 1), '([^.]*)$', 1),
        'value', try_element_at(map_values({{ item }}), 1),
        'raw', {{ json_value_get('try_element_at(map_values(' ~ item ~ '), 1)', '$.value', 'string') }}
    )
{%- endmacro %}


{#- One `dts_avro_union_branch` as struct<present, text, reason>: the canonical text canal gives
    for the same value; `present` is false for EmptyObject NONE (the column is not in the
    image); `reason` says why the value is unusable, NULL when it is fine.
    - Integer, Decimal: the `value` text as sent (exact); it must be a number. Float: its text.
    - Character: `value`'s bytes decoded by `charset` (utf8/utf8mb3/utf8mb4 as UTF-8; latin1,
      ascii and binary as the bytes' ISO-8859-1 text, as canal gives binary columns).
    - DateTime: YYYY-MM-DD HH:MM:SS[.ffffff] from the parts present; `millis` holds microseconds
      (the SDK reads it as such). Timestamp: `timestamp` (epoch seconds) plus `millis` as UTC.
      TimestampWithTimeZone: the DateTime text, a space, `timezone`.
    - BinaryObject, BinaryGeometry: the bytes' ISO-8859-1 text; a geometry must start with a WKB
      header (after MySQL's 4-byte SRID or not). TextObject, TextGeometry: `value`.
    - EmptyObject: NULL is SQL NULL; NONE leaves the column out. -#}
{% macro dts_avro_value_text(union) -%}
    {%- set branch, value, raw = union ~ '.branch', union ~ '.value', union ~ '.raw' -%}
    {%- set bytes_ok -%}coalesce({{ raw }} rlike '^[\\x00-\\xFF]*$', false){%- endset -%}
    {%- set charset = 'lower(' ~ json_value_get(value, '$.charset', 'string') ~ ')' -%}
    {%- set character_text -%}
        case
            when {{ charset }} in ('utf8', 'utf8mb3', 'utf8mb4')
                then if({{ bytes_ok }}, {{ utf8_text('encode(' ~ raw ~ ", 'ISO-8859-1')") }}, null)
            when {{ charset }} in ('latin1', 'binary') then {{ raw }}
            when {{ charset }} = 'ascii' and coalesce({{ raw }} rlike '^[\\x00-\\x7F]*$', false) then {{ raw }}
        end
    {%- endset -%}
    {%- set epoch_seconds = json_value_get(value, '$.timestamp', 'bigint') -%}
    {%- set micros = json_value_get(value, '$.millis', 'int') -%}
    {%- set timestamp_ok -%}
        coalesce(abs({{ epoch_seconds }}) <= 253402300799, false) and coalesce({{ micros }} between 0 and 999999, false)
    {%- endset -%}
    {%- set timezone = json_value_get(value, '$.timezone', 'string') -%}
    {%- set empty = json_value_get(value, '$', 'string') -%}
    {%- set text -%}
        case
            when {{ branch }} in ('Integer', 'Decimal', 'Float', 'TextObject', 'TextGeometry', 'BinaryObject', 'BinaryGeometry')
                then {{ raw }}
            when {{ branch }} = 'Character' then {{ character_text }}
            -- Spark's timestamp text drops trailing fraction zeros, as the DateTime text does.
            when {{ branch }} = 'Timestamp'
                then if({{ timestamp_ok }}, cast(timestamp_micros({{ epoch_seconds }} * 1000000 + {{ micros }}) as string), null)
            when {{ branch }} = 'DateTime' then {{ dts_avro_datetime_text(value, '$') }}
            when {{ branch }} = 'TimestampWithTimeZone'
                then concat_ws(' ', {{ dts_avro_datetime_text(value, '$.value') }}, {{ timezone }})
        end
    {%- endset -%}
    {%- set reason -%}
        case
            when {{ union }}.item is null then null
            when coalesce(size({{ union }}.item), -1) != 1 then 'invalid_value'
            when {{ branch }} = 'Integer'
                then if(coalesce({{ raw }} rlike '^-?[0-9]+$', false), null, 'invalid_value')
            when {{ branch }} = 'Decimal'
                then if(coalesce({{ raw }} rlike '^-?[0-9]+(\\.[0-9]+)?$', false), null, 'invalid_value')
            when {{ branch }} = 'Float'
                then if({{ json_value_get(value, '$.value', 'double') }} is null, 'invalid_value', null)
            when {{ branch }} = 'Character' then case
                when not {{ bytes_ok }} then 'invalid_value'
                when not coalesce({{ charset }} in ('utf8', 'utf8mb3', 'utf8mb4', 'latin1', 'binary', 'ascii'), false)
                    then 'unsupported_charset'
                when ({{ character_text }}) is null then 'invalid_character_value'
            end
            when {{ branch }} = 'Timestamp' then if({{ timestamp_ok }}, null, 'invalid_value')
            when {{ branch }} = 'DateTime' then if({{ dts_avro_datetime_ok(value, '$') }}, null, 'invalid_value')
            when {{ branch }} = 'TimestampWithTimeZone'
                then if({{ dts_avro_datetime_ok(value, '$.value') }} and {{ timezone }} is not null, null, 'invalid_value')
            when {{ branch }} in ('TextObject', 'TextGeometry') then if({{ raw }} is null, 'invalid_value', null)
            when {{ branch }} = 'BinaryObject' then if({{ bytes_ok }}, null, 'invalid_value')
            when {{ branch }} = 'BinaryGeometry' then case
                when not {{ bytes_ok }} then 'invalid_value'
                when not ({{ dts_avro_wkb_header_ok(raw) }} or {{ dts_avro_wkb_header_ok('substr(' ~ raw ~ ', 5)') }})
                    then 'invalid_geometry'
            end
            when {{ branch }} = 'EmptyObject' then if(coalesce({{ empty }} in ('NULL', 'NONE'), false), null, 'invalid_value')
            else 'unknown_value_type'
        end
    {%- endset -%}
    named_struct(
        'present', not coalesce({{ branch }} = 'EmptyObject' and {{ empty }} = 'NONE', false),
        'text', if(({{ reason }}) is null, {{ text }}, null),
        'reason', {{ reason }}
    )
{%- endmacro %}


{#- The text of a DateTime record at `path` of a value: "YYYY-MM-DD HH:MM:SS[.ffffff]" from the
    parts present (DATE: the date, TIME: the time, YEAR: the year), the fraction without trailing
    zeros; every part is an int union. -#}
{% macro dts_avro_datetime_text(value, path) -%}
    {%- set part = {} -%}
    {%- for name in ['year', 'month', 'day', 'hour', 'minute', 'second', 'millis'] -%}
        {%- do part.update({name: json_value_get(value, path ~ '.' ~ name ~ '.int', 'int')}) -%}
    {%- endfor -%}
    nullif(concat_ws(
        ' ',
        nullif(concat_ws('-', lpad(cast({{ part.year }} as string), 4, '0'), {{ two_digits(part.month) }}, {{ two_digits(part.day) }}), ''),
        if({{ part.hour }} is not null, concat(
            {{ two_digits(part.hour) }}, ':', {{ two_digits('coalesce(' ~ part.minute ~ ', 0)') }}, ':',
            {{ two_digits('coalesce(' ~ part.second ~ ', 0)') }},
            if({{ part.millis }} > 0, concat('.', regexp_replace(lpad(cast({{ part.millis }} as string), 6, '0'), '0+$', '')), '')
        ), null)
    ), '')
{%- endmacro %}


{#- Whether the DateTime record at `path` holds a date or a time, each part in its range. -#}
{% macro dts_avro_datetime_ok(value, path) -%}
    {%- set part = {} -%}
    {%- for name in ['year', 'month', 'day', 'hour', 'minute', 'second', 'millis'] -%}
        {%- do part.update({name: json_value_get(value, path ~ '.' ~ name ~ '.int', 'int')}) -%}
    {%- endfor -%}
    (
        coalesce({{ part.year }} is not null or {{ part.hour }} is not null, false)
        and coalesce(coalesce({{ part.month }}, 0) between 0 and 12, false)
        and coalesce(coalesce({{ part.day }}, 0) between 0 and 31, false)
        and coalesce(coalesce({{ part.minute }}, 0) between 0 and 59, false)
        and coalesce(coalesce({{ part.second }}, 0) between 0 and 59, false)
        and coalesce(coalesce({{ part.millis }}, 0) between 0 and 999999, false)
    )
{%- endmacro %}


{% macro two_digits(number) -%}
    lpad(cast({{ number }} as string), 2, '0')
{%- endmacro %}


{#- A WKB header (byte order 0/1, geometry type 1-7) at the start of a byte string. -#}
{% macro dts_avro_wkb_header_ok(bytes) -%}
    coalesce(length({{ bytes }}) >= 5 and (
        (substr({{ bytes }}, 1, 1) = '\u0001' and substr({{ bytes }}, 3, 3) = '\u0000\u0000\u0000'
            and substr({{ bytes }}, 2, 1) between '\u0001' and '\u0007')
        or (substr({{ bytes }}, 1, 1) = '\u0000' and substr({{ bytes }}, 2, 3) = '\u0000\u0000\u0000'
            and substr({{ bytes }}, 5, 1) between '\u0001' and '\u0007')
    ), false)
{%- endmacro %}


{#- Every value of an image array, decoded (`dts_avro_value_text`). -#}
{% macro dts_avro_values(items) -%}
    transform(
        transform({{ items }}, item -> {{ dts_avro_union_branch('item') }}),
        dts_value -> {{ dts_avro_value_text('dts_value') }}
    )
{%- endmacro %}


{#- The record's one row: column name -> text for the present values of each image, NULL unless
    the field names are distinct and named and the image holds a value for each. An insert's
    before image and a delete's after image are not read even where sent. -#}
{% macro dts_avro_row_images(message, names, before_values, after_values) -%}
    array(named_struct(
        'before_image', if(
            {{ message }}.operation != 'INSERT',
            {{ dts_avro_image(names, message ~ '.beforeImages.array', before_values) }},
            null
        ),
        'after_image', if(
            {{ message }}.operation != 'DELETE',
            {{ dts_avro_image(names, message ~ '.afterImages.array', after_values) }},
            null
        )
    ))
{%- endmacro %}


{% macro dts_avro_image(names, items, values) -%}
    if(
        {{ array_size(items) }} = {{ array_size(names) }}
        and size(array_distinct(array_compact({{ names }}))) = {{ array_size(names) }},
        map_from_entries(transform(
            filter(
                zip_with({{ names }}, {{ values }}, (column_name, column_value) -> named_struct('key', column_name, 'value', column_value)),
                entry -> entry.value.present
            ),
            entry -> named_struct('key', entry.key, 'value', entry.value.text)
        )),
        null
    )
{%- endmacro %}


{#- Why the record's images cannot be read: fields unnamed or named twice, an image without one
    value per field, else the first value's reason. An absent or empty image, or an empty name,
    is the shared ladder's to judge (missing_row_image, empty_column_name). -#}
{% macro dts_avro_image_rejection_reason(message, names, before_values, after_values) -%}
    case
        when {{ array_size(names) }} = 0 or exists({{ names }}, field_name -> field_name is null)
            then 'missing_columns'
        when size(array_distinct({{ names }})) != size({{ names }}) then 'duplicate_column'
        else coalesce(
            if(
                {{ message }}.operation != 'INSERT',
                {{ dts_avro_image_reason(names, message ~ '.beforeImages.array', before_values) }},
                null
            ),
            if(
                {{ message }}.operation != 'DELETE',
                {{ dts_avro_image_reason(names, message ~ '.afterImages.array', after_values) }},
                null
            )
        )
    end
{%- endmacro %}


{% macro dts_avro_image_reason(names, items, values) -%}
    case
        when {{ array_size(items) }} = 0 then null
        when {{ array_size(items) }} != {{ array_size(names) }} then 'invalid_row_image'
        else try_element_at(filter(transform({{ values }}, column_value -> column_value.reason), reason -> reason is not null), 1)
    end
{%- endmacro %}


{#- `objectName` is "<database>.<table>": the table is what follows the first dot. -#}
{% macro dts_avro_table_name(object_name) -%}
    if(instr({{ object_name }}, '.') > 0, substr({{ object_name }}, instr({{ object_name }}, '.') + 1), null)
{%- endmacro %}


{#- The primary key's columns, from the tag `pk_uk_info` ({"PRIMARY": [...], ...}). -#}
{% macro dts_avro_key_columns(tags) -%}
    try_element_at(from_json(try_element_at({{ tags }}, 'pk_uk_info'), 'map<string, array<string>>'), 'PRIMARY')
{%- endmacro %}


{#- Column name -> MySQL type name, from the fields' `dataTypeNumber` (MySQL's column type
    numbers, named by `type_names`; a number it lacks stays as its text). NULL unless the names
    are distinct and named. -#}
{% macro dts_avro_column_types(fields, type_names) -%}
    if(
        size(array_distinct(array_compact(transform({{ fields }}, field -> field.name)))) = {{ array_size(fields) }},
        map_from_entries(transform(
            {{ fields }},
            field -> named_struct(
                'key', field.name,
                'value', coalesce(try_element_at({{ type_names }}, cast(field.dataTypeNumber as string)), cast(field.dataTypeNumber as string))
            )
        )),
        null
    )
{%- endmacro %}


{#- `sourcePosition` "<offset>@<binlog file>" as "<file>:<offset>", like the other formats'
    binlog positions; any other form as sent. -#}
{% macro dts_avro_source_position(position) -%}
    case
        when {{ position }} rlike '^([0-9]+)@([^@]+)$' then regexp_replace({{ position }}, '^([0-9]+)@([^@]+)$', '$2:$1')
        else nullif({{ position }}, '')
    end
{%- endmacro %}
