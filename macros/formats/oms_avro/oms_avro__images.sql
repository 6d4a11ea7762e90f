{#- An image array: the record's, or the JSON text of a shard set's decoded bytes where there is one. -#}
{% macro oms_avro_images(images, images_json) -%}
    if(
        {{ images_json }} is null,
        {{ oms_avro_union_value(images) }},
        from_json({{ images_json }}, '{{ oms_avro_image_type() }}')
    )
{%- endmacro %}


{#- Every ColumnValue of an image array, decoded (`oms_avro_column_value`) once its value union
    is unwrapped: one lambda per step, so each part is written (and evaluated) once. -#}
{% macro oms_avro_values(images, wkt) -%}
    transform(
        transform({{ images }}, column_value -> named_struct(
            'type_info', column_value.type_info,
            'value_union', column_value.value,
            'branch', {{ oms_avro_branch('column_value.value') }},
            'value', {{ oms_avro_union_value('column_value.value') }}
        )),
        column_value -> {{ oms_avro_column_value('column_value', wkt) }}
    )
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
        when {{ charset }} is null or not {{ is_in(name, utf8 + bmp + ascii + latin1 + cp1252 + other) }}
            then 'unknown_charset'
        when {{ is_in(name, ascii) }} and not {{ text }} rlike '^[\\x{0}-\\x{7f}]*$' then 'invalid_charset'
        when {{ is_in(name, latin1) }} and not {{ text }} rlike '^[\\x{0}-\\x{ff}]*$' then 'invalid_charset'
        when
            {{ is_in(name, cp1252) }}
            and not {{ text }} rlike '^[\\x{0}-\\x{7f}\\x{a0}-\\x{ff}\\x{152}-\\x{153}\\x{160}-\\x{161}\\x{178}\\x{17d}-\\x{17e}\\x{192}\\x{2c6}\\x{2dc}\\x{2013}-\\x{2014}\\x{2018}-\\x{201a}\\x{201c}-\\x{201e}\\x{2020}-\\x{2022}\\x{2026}\\x{2030}\\x{2039}-\\x{203a}\\x{20ac}\\x{2122}]*$'
            then 'invalid_charset'
        when {{ is_in(name, bmp) }} and {{ text }} rlike '[\\x{10000}-\\x{10ffff}]' then 'invalid_charset'
    end
{%- endmacro %}
