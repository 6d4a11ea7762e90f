{#- Kafka Connect BYTES values arrive base64-encoded. NULL unless the text is base64 of at least
    one byte (Spark's unbase64 decodes garbage to garbage). Checked by its length and one
    character class, which a long value (a BLOB) matches without backtracking or recursion. -#}
{% macro connect_base64_bytes(value_text) -%}
    if(
        length({{ value_text }}) % 4 = 0 and {{ value_text }} rlike '^[A-Za-z0-9+/]+={0,2}$',
        unbase64({{ value_text }}),
        null
    )
{%- endmacro %}


{#- The bytes of a binary value as an array of ints 0-255, in order. -#}
{% macro byte_values(bytes) -%}
    transform(
        sequence(1, octet_length({{ bytes }})),
        byte_position -> cast(conv(substr(hex({{ bytes }}), 2 * byte_position - 1, 2), 16, 10) as int)
    )
{%- endmacro %}


{#- Exact integers of any size (beyond decimal(38) and bigint) as arrays of base-10^9 limbs,
    least significant first. limbs * factor + addend, for factor and addend below 2^31: -#}
{% macro limbs_times_plus(limbs, factor, addend) -%}
    aggregate(
        {{ limbs }},
        named_struct('limbs', cast(array() as array<bigint>), 'carry', cast({{ addend }} as bigint)),
        (state, limb) -> named_struct(
            'limbs', concat(state.limbs, array((limb * {{ factor }} + state.carry) % 1000000000)),
            'carry', (limb * {{ factor }} + state.carry) div 1000000000
        ),
        state -> if(state.carry > 0, concat(state.limbs, array(state.carry)), state.limbs)
    )
{%- endmacro %}


{#- The unsigned big-endian integer that an array of byte values spells, as limbs. -#}
{% macro limbs_from_bytes(byte_array) -%}
    aggregate(
        {{ byte_array }},
        array(cast(0 as bigint)),
        (limbs, byte_value) -> {{ limbs_times_plus('limbs', 256, 'byte_value') }}
    )
{%- endmacro %}


{#- Limbs as decimal digits, without leading zeros. -#}
{% macro limbs_digits(limbs) -%}
    concat_ws('', transform(
        reverse({{ limbs }}),
        (limb, limb_position) -> if(limb_position = 0, cast(limb as string), lpad(cast(limb as string), 9, '0'))
    ))
{%- endmacro %}


{#- org.apache.kafka.connect.data.Decimal: base64 of the unscaled value's big-endian two's
    complement bytes (any length), and `parameters.scale`. Gives exact text with every digit of
    its scale, e.g. "-10.50", "12345.110". A negative value's magnitude is its inverted bytes plus
    one; the point goes `scale` digits from the right, after left-padding with zeros (5 at scale
    2 is 0.05). Cut by position, not by a regular expression (which backtracks over a large
    scale's digits); a scale above Postgres's largest (16383) is not a decimal's, not decoded. -#}
{% macro connect_decimal_text(value_text, scale) -%}
    {%- set is_negative = "hex(number.bytes) rlike '^[89A-F]'" -%}
    {%- set magnitude_bytes = 'transform(' ~ byte_values('number.bytes') ~ ', byte_value -> if(' ~ is_negative ~ ', 255 - byte_value, byte_value))' -%}
    {#- The bytes and the scale, then the digits (no leading zeros), are each computed once, bound
        to a lambda's argument. -#}
    element_at(transform(
        array(named_struct('bytes', {{ connect_base64_bytes(value_text) }}, 'scale', {{ scale }})),
        number -> case
            when number.bytes is not null and number.scale between 0 and {{ connect_decimal_max_scale() }}
                then element_at(transform(
                    array({{ limbs_digits(limbs_times_plus(limbs_from_bytes(magnitude_bytes), 1, 'if(' ~ is_negative ~ ', 1, 0)')) }}),
                    digits -> concat(
                        if({{ is_negative }}, '-', ''),
                        if(length(digits) > number.scale, left(digits, length(digits) - number.scale), '0'),
                        if(number.scale > 0, concat('.', lpad(right(digits, number.scale), number.scale, '0')), '')
                    )
                ), 1)
        end
    ), 1)
{%- endmacro %}


{#- The largest scale decoded: Postgres NUMERIC's (MySQL DECIMAL's is 30). -#}
{% macro connect_decimal_max_scale() -%}
    16383
{%- endmacro %}


{#- Kafka Connect BYTES without a logical type (MySQL BINARY, VARBINARY, BLOB; Postgres BYTEA):
    the bytes' ISO-8859-1 text, one character per byte, as canal gives binary values. -#}
{% macro connect_bytes_text(value_text) -%}
    decode({{ connect_base64_bytes(value_text) }}, 'ISO-8859-1')
{%- endmacro %}


{#- io.debezium.data.geometry.Geometry, Geography and Point: base64 `wkb` (PostGIS: EWKB) and
    `srid`. Given as the bytes MySQL keeps a geometry in, as ISO-8859-1 text (the text canal
    sends): the SRID as 4 little-endian bytes (0 when absent), then the WKB. NULL without `wkb`
    (a Postgres POINT may send only `x` and `y`). int_row_changes_labelled gives it as WKT. -#}
{% macro connect_geometry_text(value) -%}
    concat(
        -- An ISO-8859-1 character is one byte: reversing the big-endian SRID's text reverses its bytes.
        reverse(decode(unhex(lpad(hex(coalesce({{ json_value_get(value, '$.srid', 'int') }}, 0)), 8, '0')), 'ISO-8859-1')),
        {{ connect_bytes_text(json_value_get(value, '$.wkb', 'string')) }}
    )
{%- endmacro %}


{#- io.debezium.data.Bits (MySQL BIT(n>1)): base64 of the bits as little-endian bytes. Given as
    the unsigned number the bits spell, e.g. b'101' is "5". -#}
{% macro connect_bits_text(value_text) -%}
    {%- set bytes = connect_base64_bytes(value_text) -%}
    if({{ bytes }} is not null, {{ limbs_digits(limbs_from_bytes('reverse(' ~ byte_values(bytes) ~ ')')) }}, null)
{%- endmacro %}
