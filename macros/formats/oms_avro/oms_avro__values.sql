{#- `.` and the nanoseconds' digits without trailing zeros; '' for none. -#}
{% macro oms_avro_fraction(nanos) -%}
    if(coalesce({{ nanos }}, 0) = 0, '', concat('.', regexp_replace(lpad(cast({{ nanos }} as string), 9, '0'), '0+$', '')))
{%- endmacro %}


{#- One ColumnValue as `oms_avro_values` unwraps it (`column_value`) as struct<text, error>: the
    text MySQL shows for it, or why it has none. `wkt` maps a WKB's bytes (as hex) to its WKT: no
    Spark built-in reads WKB, so base_oms_avro__binary_values gives them. A FLOAT column's value
    prints as a float whichever branch holds it: a binary float read back by fastavro may be
    re-encoded as a double. -#}
{% macro oms_avro_column_value(column_value, wkt) -%}
    {%- set branch, v = column_value ~ '.branch', column_value ~ '.value' -%}
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
        when {{ column_value }}.value_union is null then {{ oms_avro_value_text('cast(null as string)') }}
        when size({{ column_value }}.value_union) != 1 then {{ oms_avro_value_error('invalid_union') }}
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
