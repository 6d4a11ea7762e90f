{#- The OceanBase OMS AvroRecord (004, src/cdc_lakehouse/avro/schemas/oms_avro.avsc) in Avro's
    JSON encoding: every union field as a one-entry map from branch name to value (004 redacts the
    namespace, so a branch is matched by the last segment of its name); a ColumnValue's value
    union is read whole. -#}
{% macro oms_avro_message_schema() -%}
    {%- set image = 'array<struct<`type_info`: string, `value`: map<string, ' ~ json_value_type() ~ '>>>' -%}
    struct<
        `id`: bigint,
        `version`: map<string, int>,
        `operation`: map<string, string>,
        `xid`: map<string, string>,
        `txind`: map<string, string>,
        `position`: map<string, string>,
        `timestamp`: map<string, bigint>,
        `source`: map<string, struct<`sourceType`: string, `version`: string>>,
        `schemaName`: map<string, string>,
        `tableName`: map<string, string>,
        `fields`: map<string, array<struct<`name`: string, `dataTypeNumber`: int>>>,
        `pkIndexes`: map<string, array<int>>,
        `ukIndexes`: map<string, array<array<int>>>,
        `beforeImages`: map<string, {{ image }}>,
        `afterImages`: map<string, {{ image }}>,
        `sql`: map<string, string>,
        `tags`: map<string, map<string, string>>,
        `total`: int,
        `index`: int,
        `beforeImageBytes`: string,
        `afterImageBytes`: string,
        `_corrupt_record`: string
    >
{%- endmacro %}


{#- Its message's top-level keys (likely_format): the OMS AvroRecord's own field names (a Debezium
    schema change has a `schemaName` too). -#}
{% macro oms_avro_shape(keys) -%}
    arrays_overlap({{ keys }}, array('txind', 'pkIndexes', 'ukIndexes', 'beforeImageBytes', 'afterImageBytes'))
{%- endmacro %}


{#- The Spark type of an image (an array of ColumnValue), as shard sets' decoded bytes give it. -#}
{% macro oms_avro_image_type() -%}
    array<struct<`type_info`: string, `value`: map<string, {{ json_value_type() }}>>>
{%- endmacro %}


{#- A union's branch name without namespace (NULL for the null branch), and its value. -#}
{% macro oms_avro_branch(union) -%}
    substring_index(get(map_keys({{ union }}), 0), '.', -1)
{%- endmacro %}


{% macro oms_avro_union_value(union) -%}
    get(map_values({{ union }}), 0)
{%- endmacro %}


{#- A record union under a branch its schema lacks: each union field must be the null branch or
    exactly one entry under its branch. -#}
{% macro oms_avro_unknown_union_branch(record) -%}
    {%- set unions = {
        'version': 'int', 'operation': 'Operation', 'xid': 'string', 'txind': 'TxindType',
        'position': 'string', 'timestamp': 'long', 'source': 'Source', 'schemaName': 'string',
        'tableName': 'string', 'fields': 'array', 'pkIndexes': 'array', 'ukIndexes': 'array',
        'beforeImages': 'array', 'afterImages': 'array', 'sql': 'string', 'tags': 'map',
    } -%}
    not (
        {%- for field, expected in unions.items() %}
        {{ 'and ' if not loop.first }}coalesce(
            {{ record }}.{{ field }} is null
            or (size({{ record }}.{{ field }}) = 1 and {{ oms_avro_branch(record ~ '.' ~ field) }} = '{{ expected }}'),
            false
        )
        {%- endfor %}
    )
{%- endmacro %}


{#- The Operation enum by what it carries: BEGIN, COMMIT and HEARTBEAT records carry no rows. -#}
{% macro oms_avro_event_kind(operation) -%}
    case
        when {{ operation }} in ('INSERT', 'UPDATE', 'DELETE') then 'row_change'
        when {{ operation }} = 'DDL' then 'schema_change'
        when {{ operation }} in ('BEGIN', 'COMMIT', 'HEARTBEAT') then 'control'
    end
{%- endmacro %}


{#- Column names of an index array (`pkIndexes`, an entry of `ukIndexes`), NULL when any index is
    out of range. -#}
{% macro oms_avro_index_columns(indexes, fields) -%}
    if(
        forall({{ indexes }}, i -> i between 0 and size({{ fields }}) - 1),
        transform({{ indexes }}, i -> get({{ fields }}, i).name),
        null
    )
{%- endmacro %}


{#- The record's key: its primary key's columns (`pkIndexes`), else its first unique key's. -#}
{% macro oms_avro_key_columns(record, fields) -%}
    coalesce(
        nullif({{ oms_avro_index_columns('coalesce(' ~ oms_avro_union_value(record ~ '.pkIndexes') ~ ', array())', fields) }}, array()),
        {{ oms_avro_index_columns('get(' ~ oms_avro_union_value(record ~ '.ukIndexes') ~ ', 0)', fields) }}
    )
{%- endmacro %}


{#- `timestamp`, epoch seconds (004; a clock in another unit is read as `epoch_to_timestamp`
    tells it); 0 or less is unknown. -#}
{% macro oms_avro_event_at(timestamp) -%}
    {{ epoch_to_timestamp(oms_avro_union_value(timestamp)) }}
{%- endmacro %}


{#- An image array: the record's, or the JSON text of a shard set's decoded bytes where there is one. -#}
{% macro oms_avro_images(images, images_json) -%}
    if(
        {{ images_json }} is null,
        {{ oms_avro_union_value(images) }},
        from_json({{ images_json }}, '{{ oms_avro_image_type() }}')
    )
{%- endmacro %}


{#- Every ColumnValue of an image array, decoded (`oms_avro_column_value`). -#}
{% macro oms_avro_values(images, wkt) -%}
    transform({{ images }}, column_value -> {{ oms_avro_column_value('column_value', wkt) }})
{%- endmacro %}


{#- Whether every field has a name, each name once. -#}
{% macro oms_avro_fields_valid(fields) -%}
    coalesce(
        size(array_compact(transform({{ fields }}, field -> field.name))) = size({{ fields }})
        and size(array_distinct(transform({{ fields }}, field -> field.name))) = size({{ fields }}),
        false
    )
{%- endmacro %}


{#- An image as column name -> text, NULL unless the fields are valid and the image holds a value
    for each. -#}
{% macro oms_avro_image(fields, values) -%}
    if(
        {{ oms_avro_fields_valid(fields) }} and size({{ values }}) = size({{ fields }}),
        map_from_arrays(transform({{ fields }}, field -> field.name), transform({{ values }}, column_value -> column_value.text)),
        null
    )
{%- endmacro %}


{#- Column name -> MySQL type name, from the images' `type_info` (OMS DataType names, named by
    `type_names`; a name it lacks stays as sent); a DecimalObject value states its column's
    precision and scale, which the type name lacks: `decimal(p,s)`. -#}
{% macro oms_avro_column_types(fields, images, type_names) -%}
    {%- set v = oms_avro_union_value('column_value.value') -%}
    {%- set precision = json_value_get(v, '$.precision', 'int') -%}
    {%- set scale = json_value_get(v, '$.scale', 'int') -%}
    if(
        {{ oms_avro_fields_valid(fields) }} and size({{ images }}) = size({{ fields }}),
        map_from_arrays(
            transform({{ fields }}, field -> field.name),
            transform({{ images }}, column_value -> coalesce(
                if({{ precision }} >= 1 and {{ scale }} between 0 and {{ precision }}, format_string('decimal(%d,%d)', {{ precision }}, {{ scale }}), null),
                try_element_at({{ type_names }}, column_value.type_info),
                column_value.type_info
            ))
        ),
        null
    )
{%- endmacro %}


{#- Why the record's images cannot be read: no fields, fields unnamed or named twice, an image
    without one value per field, a key index out of range, else the first value's reason. -#}
{% macro oms_avro_image_rejection_reason(record, fields, before_images, after_images, before_values, after_values) -%}
    case
        when {{ array_size(fields) }} < 1 then 'missing_fields'
        when not {{ oms_avro_fields_valid(fields) }} then 'invalid_fields'
        when
            ({{ before_images }} is not null and size({{ before_images }}) != size({{ fields }}))
            or ({{ after_images }} is not null and size({{ after_images }}) != size({{ fields }}))
            then 'image_field_count_mismatch'
        when
            {{ oms_avro_index_columns('coalesce(' ~ oms_avro_union_value(record ~ '.pkIndexes') ~ ', array())', fields) }} is null
            or exists(
                coalesce({{ oms_avro_union_value(record ~ '.ukIndexes') }}, array()),
                unique_key -> {{ oms_avro_index_columns('unique_key', fields) }} is null
            )
            then 'invalid_key_index'
        else coalesce(
            get(filter(transform({{ before_values }}, column_value -> column_value.error), error -> error is not null), 0),
            get(filter(transform({{ after_values }}, column_value -> column_value.error), error -> error is not null), 0)
        )
    end
{%- endmacro %}


{#- Why a StringObject's text cannot be in its charset (MySQL and Oracle spellings), or NULL: an
    unknown charset, or text outside the charset's repertoire where it is narrower than Unicode.
    MySQL's latin1 is cp1252. -#}
{% macro oms_avro_charset_error(charset, text) -%}
    {%- set utf8 = ['utf8mb4', 'utf-8', 'al32utf8', 'utf16', 'utf-16', 'utf16le', 'utf32', 'al16utf16'] -%}
    {%- set bmp = ['utf8', 'utf8mb3', 'ucs2'] -%}
    {%- set ascii = ['ascii', 'us-ascii', 'us7ascii'] -%}
    {%- set latin1 = ['iso-8859-1', 'we8iso8859p1'] -%}
    {%- set cp1252 = ['latin1', 'cp1252', 'we8mswin1252'] -%}
    {%- set other = ['binary', 'gbk', 'gb18030', 'gb2312', 'zhs16gbk', 'big5', 'sjis', 'ujis', 'euckr'] -%}
    {%- set name = 'lower(' ~ charset ~ ')' -%}
    case
        when {{ charset }} is null or {{ name }} not in {{ sql_list(utf8 + bmp + ascii + latin1 + cp1252 + other) }}
            then 'unknown_charset'
        when {{ name }} in {{ sql_list(ascii) }} and not {{ text }} rlike '^[\\x{0}-\\x{7f}]*$' then 'invalid_charset'
        when {{ name }} in {{ sql_list(latin1) }} and not {{ text }} rlike '^[\\x{0}-\\x{ff}]*$' then 'invalid_charset'
        when
            {{ name }} in {{ sql_list(cp1252) }}
            and not {{ text }} rlike '^[\\x{0}-\\x{7f}\\x{a0}-\\x{ff}\\x{152}-\\x{153}\\x{160}-\\x{161}\\x{178}\\x{17d}-\\x{17e}\\x{192}\\x{2c6}\\x{2dc}\\x{2013}-\\x{2014}\\x{2018}-\\x{201a}\\x{201c}-\\x{201e}\\x{2020}-\\x{2022}\\x{2026}\\x{2030}\\x{2039}-\\x{203a}\\x{20ac}\\x{2122}]*$'
            then 'invalid_charset'
        when {{ name }} in {{ sql_list(bmp) }} and {{ text }} rlike '[\\x{10000}-\\x{10ffff}]' then 'invalid_charset'
    end
{%- endmacro %}


{#- `.` and the nanoseconds' digits without trailing zeros; '' for none. -#}
{% macro oms_avro_fraction(nanos) -%}
    if(coalesce({{ nanos }}, 0) = 0, '', concat('.', regexp_replace(lpad(cast({{ nanos }} as string), 9, '0'), '0+$', '')))
{%- endmacro %}


{#- One ColumnValue (`column_value`) as struct<text, error>: the text MySQL shows for it, or why
    it has none. `wkt` maps a WKB's bytes (as hex) to its WKT: no Spark built-in reads WKB, so
    base_oms_avro__binary_values gives them. A FLOAT column's value prints as a float whichever
    branch holds it: a binary float read back by fastavro may be re-encoded as a double. -#}
{% macro oms_avro_column_value(column_value, wkt) -%}
    {%- set branch = oms_avro_branch(column_value ~ '.value') -%}
    {%- set v = oms_avro_union_value(column_value ~ '.value') -%}
    {%- set text = json_value_get(v, '$', 'string') -%}
    {%- set latin1 -%}coalesce({{ text }} rlike '^[\\x{0}-\\x{ff}]*$', false){%- endset -%}
    {%- set string_value = json_value_get(v, '$.value', 'string') -%}
    {%- set scale = json_value_get(v, '$.scale', 'int') -%}
    {%- set part = {} -%}
    {%- for name in ['year', 'month', 'day', 'hours', 'minutes', 'seconds', 'nanos', 'srid'] -%}
        {%- do part.update({name: json_value_get(v, '$.' ~ name, 'int')}) -%}
    {%- endfor -%}
    {%- set date_ok -%}
        {{ part.year }} between 0 and 9999 and {{ part.month }} between 0 and 12 and {{ part.day }} between 0 and 31
    {%- endset -%}
    {%- set clock_ok -%}
        {{ part.minutes }} between 0 and 59 and {{ part.seconds }} between 0 and 59
        and coalesce({{ part.nanos }}, 0) between 0 and 999999999
    {%- endset -%}
    {%- set epoch = json_value_get(v, '$.seconds', 'bigint') -%}
    {%- set zone = 'coalesce(' ~ json_value_get(v, '$.timezone.string', 'string') ~ ", 'UTC')" -%}
    {%- set wkb = json_value_get(v, '$.wkb', 'string') -%}
    {%- set wkb_hex = 'hex(encode(' ~ wkb ~ ", 'ISO-8859-1'))" -%}
    case
        when {{ column_value }}.value is null then {{ oms_avro_value_text('cast(null as string)') }}
        when size({{ column_value }}.value) != 1 then {{ oms_avro_value_error('invalid_union') }}
        when {{ branch }} in ('int', 'long') then {{ oms_avro_typed_value(v, 'bigint', 'invalid_number') }}
        when {{ branch }} = 'boolean' then {{ oms_avro_typed_value(v, 'boolean', 'invalid_boolean') }}
        when {{ branch }} = 'float' or ({{ branch }} = 'double' and {{ column_value }}.type_info = 'FLOAT')
            then {{ oms_avro_typed_value(v, 'float', 'invalid_number') }}
        when {{ branch }} = 'double' then {{ oms_avro_typed_value(v, 'double', 'invalid_number') }}
        when {{ branch }} = 'string' then {{ oms_avro_value_text(text) }}
        when {{ branch }} = 'bytes' then if(
            {{ latin1 }},
            {{ oms_avro_value_text(text) }},
            {{ oms_avro_value_error('invalid_bytes') }}
        )
        when {{ branch }} = 'StringObject' then named_struct(
            'text', if({{ oms_avro_charset_error(json_value_get(v, '$.charsetName', 'string'), string_value) }} is null, {{ string_value }}, null),
            'error', {{ oms_avro_charset_error(json_value_get(v, '$.charsetName', 'string'), string_value) }}
        )
        when {{ branch }} = 'DecimalObject' then if(
            {{ string_value }} rlike '^-?[0-9]+(\\.[0-9]+)?$' and {{ scale }} >= 0
            and length(regexp_extract({{ string_value }}, '\\.([0-9]+)$', 1)) <= {{ scale }},
            {{ oms_avro_value_text(
                'if(' ~ scale ~ ' = 0, ' ~ string_value ~ ", concat(regexp_extract(" ~ string_value ~ ", '^(-?[0-9]+)', 1), '.', rpad(regexp_extract("
                ~ string_value ~ ", '\\\\.([0-9]+)$', 1), " ~ scale ~ ", '0')))"
            ) }},
            {{ oms_avro_value_error('invalid_decimal') }}
        )
        when {{ branch }} = 'DateObject' then if(
            {{ date_ok }},
            {{ oms_avro_value_text("format_string('%04d-%02d-%02d', " ~ part.year ~ ', ' ~ part.month ~ ', ' ~ part.day ~ ')') }},
            {{ oms_avro_value_error('invalid_date') }}
        )
        when {{ branch }} = 'TimeObject' then if(
            {{ part.hours }} between 0 and 838 and {{ clock_ok }},
            {{ oms_avro_value_text(
                "concat(if(coalesce(" ~ json_value_get(v, '$.negative', 'boolean') ~ ", false), '-', ''), format_string('%02d:%02d:%02d', "
                ~ part.hours ~ ', ' ~ part.minutes ~ ', ' ~ part.seconds ~ '), ' ~ oms_avro_fraction(part.nanos) ~ ')'
            ) }},
            {{ oms_avro_value_error('invalid_time') }}
        )
        when {{ branch }} = 'DateTimeObject' then if(
            {{ date_ok }} and {{ part.hours }} between 0 and 23 and {{ clock_ok }},
            {{ oms_avro_value_text(
                "concat(format_string('%04d-%02d-%02d %02d:%02d:%02d', " ~ part.year ~ ', ' ~ part.month ~ ', ' ~ part.day ~ ', '
                ~ part.hours ~ ', ' ~ part.minutes ~ ', ' ~ part.seconds ~ '), ' ~ oms_avro_fraction(part.nanos) ~ ')'
            ) }},
            {{ oms_avro_value_error('invalid_datetime') }}
        )
        when {{ branch }} = 'TimestampObject' then case
            -- Seconds of the years 1 to 9999: any other value is no MySQL TIMESTAMP (and would overflow).
            when not coalesce({{ epoch }} between -62135596800 and 253402300799, false)
                or not coalesce({{ part.nanos }} between 0 and 999999999, false)
                then {{ oms_avro_value_error('invalid_timestamp') }}
            when not {{ is_time_zone(zone) }} then {{ oms_avro_value_error('invalid_time_zone') }}
            else {{ oms_avro_value_text(
                "concat(date_format(from_utc_timestamp(timestamp_seconds(" ~ epoch ~ "), " ~ zone ~ "), 'yyyy-MM-dd HH:mm:ss'), "
                ~ oms_avro_fraction(part.nanos) ~ ')'
            ) }}
        end
        when {{ branch }} = 'BitObject' then if(
            {{ string_value }} rlike '^[01]{1,64}$',
            {{ oms_avro_value_text('conv(' ~ string_value ~ ', 2, 10)') }},
            {{ oms_avro_value_error('invalid_bit') }}
        )
        when {{ branch }} = 'EnumSetValue' then if(
            {{ string_value }} is null, {{ oms_avro_value_error('invalid_enum_set') }}, {{ oms_avro_value_text(string_value) }}
        )
        when {{ branch }} = 'GeometryValue' then if(
            {{ part.srid }} is not null and coalesce({{ wkb }} rlike '^[\\x{0}-\\x{ff}]*$', false)
            and try_element_at({{ wkt }}, {{ wkb_hex }}) is not null,
            {{ oms_avro_value_text("concat('SRID=', " ~ part.srid ~ ", ';', try_element_at(" ~ wkt ~ ', ' ~ wkb_hex ~ '))') }},
            {{ oms_avro_value_error('invalid_wkb') }}
        )
        else {{ oms_avro_value_error('unknown_value_branch') }}
    end
{%- endmacro %}


{#- A primitive value as the Spark type of its branch, printed; else an error. -#}
{% macro oms_avro_typed_value(value, spark_type, error) -%}
    if(
        {{ json_value_get(value, '$', spark_type) }} is null,
        {{ oms_avro_value_error(error) }},
        {{ oms_avro_value_text('cast(' ~ json_value_get(value, '$', spark_type) ~ ' as string)') }}
    )
{%- endmacro %}


{% macro oms_avro_value_text(text) -%}
    named_struct('text', {{ text }}, 'error', cast(null as string))
{%- endmacro %}


{% macro oms_avro_value_error(reason) -%}
    named_struct('text', cast(null as string), 'error', '{{ reason }}')
{%- endmacro %}
