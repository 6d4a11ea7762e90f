{#- A union of the record under a branch its schema lacks: `from_json` would read it as the
    null branch. Each union and the branches (last name segments) it may hold, read from the
    record parsed once (`variant`) where Spark has variants, else from its JSON text. -#}
{% macro dts_avro_unknown_union_branch(json, variant) -%}
    {%- set unions = {
        'objectName': ['string'], 'processTimestamps': ['array'], 'fields': ['string', 'array'],
        'beforeImages': ['string', 'array'], 'afterImages': ['string', 'array'],
    } -%}
    {%- set fields = [] -%}
    {%- for union in unions %}{% do fields.append('`' ~ union ~ '`: map<string, string>') %}{% endfor -%}
    {%- set parsed = "from_json(" ~ json ~ ", 'struct<" ~ fields | join(', ') ~ ">')" -%}
    (
        {%- for union, branches in unions.items() %}
        {%- set value = "try_variant_get(" ~ variant ~ ", '$." ~ union ~ "', 'map<string, variant>')"
            if spark_supports_variant() else parsed ~ '.' ~ union %}
        {{ 'or ' if not loop.first }}coalesce(
            {{ value }} is not null and (
                size({{ value }}) != 1
                or try_element_at(map_keys({{ value }}), 1) not in ('{{ branches | join("', '") }}')
            ),
            false
        )
        {%- endfor %}
    )
{%- endmacro %}


{#- One image value, a union branch as map<branch name, value>, as struct<item, branch (the type
    name's last segment), value (the branch's value), raw (its `value` field as text), charset
    (lower case), bytes_ok (raw holds bytes), datetime (a DateTime's record, or a
    TimestampWithTimeZone's)>: worked out once per value, as lambdas are evaluated without common
    subexpressions. -#}
{% macro dts_avro_union_branch(item) -%}
    {%- set branch = "regexp_extract(try_element_at(map_keys(" ~ item ~ "), 1), '([^.]*)$', 1)" -%}
    {%- set value = 'try_element_at(map_values(' ~ item ~ '), 1)' -%}
    {%- set raw = json_value_get(value, '$.value', 'string') -%}
    named_struct(
        'item', {{ item }},
        'branch', {{ branch }},
        'value', {{ value }},
        'datetime', if({{ branch }} = 'TimestampWithTimeZone', {{ json_value_get(value, '$.value', json_value_type()) }}, {{ value }}),
        'raw', {{ raw }},
        'charset', lower({{ json_value_get(value, '$.charset', 'string') }}),
        'bytes_ok', coalesce({{ raw }} rlike '^[\\x00-\\xFF]*$', false)
    )
{%- endmacro %}


{#- One `dts_avro_union_branch` as struct<present, text, reason>: the canonical text canal gives
    for the same value (whatever `reason`: `dts_avro_values` keeps it only when NULL); `present`
    is false for EmptyObject NONE (the column is not in the image); `reason` says why the value
    is unusable, NULL when it is fine.
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
    {%- set branch, value, raw, charset, bytes_ok = (
        union ~ '.branch', union ~ '.value', union ~ '.raw', union ~ '.charset', union ~ '.bytes_ok'
    ) -%}
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
            when {{ branch }} in ('DateTime', 'TimestampWithTimeZone')
                then concat_ws(' ', {{ dts_avro_datetime_text(union ~ '.datetime') }}, if({{ branch }} != 'DateTime', {{ timezone }}, null))
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
            when {{ branch }} in ('DateTime', 'TimestampWithTimeZone') then if(
                {{ dts_avro_datetime_ok(union ~ '.datetime') }} and ({{ branch }} = 'DateTime' or {{ timezone }} is not null),
                null,
                'invalid_value'
            )
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
        'text', {{ text }},
        'reason', {{ reason }}
    )
{%- endmacro %}


{#- The text of a DateTime record: "YYYY-MM-DD HH:MM:SS[.ffffff]" from the parts present (DATE:
    the date, TIME: the time, YEAR: the year), the fraction without trailing zeros; every part is
    an int union. -#}
{% macro dts_avro_datetime_text(datetime) -%}
    {%- set part = {} -%}
    {%- for name in ['year', 'month', 'day', 'hour', 'minute', 'second', 'millis'] -%}
        {%- do part.update({name: json_value_get(datetime, '$.' ~ name ~ '.int', 'int')}) -%}
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


{#- Whether a DateTime record holds a date or a time, each part in its range. -#}
{% macro dts_avro_datetime_ok(datetime) -%}
    {%- set part = {} -%}
    {%- for name in ['year', 'month', 'day', 'hour', 'minute', 'second', 'millis'] -%}
        {%- do part.update({name: json_value_get(datetime, '$.' ~ name ~ '.int', 'int')}) -%}
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


{#- Every value of an image array, decoded (`dts_avro_value_text`); its text only when usable.
    One step per lambda, so each part is written (and evaluated) once. -#}
{% macro dts_avro_values(items) -%}
    transform(
        transform(
            transform({{ items }}, item -> {{ dts_avro_union_branch('item') }}),
            dts_value -> {{ dts_avro_value_text('dts_value') }}
        ),
        decoded -> named_struct(
            'present', decoded.present, 'text', if(decoded.reason is null, decoded.text, null), 'reason', decoded.reason
        )
    )
{%- endmacro %}
