"""The JSON primitives the Avro decoders need that differ by Spark version.

Spark 4 reads any JSON value into a VARIANT, exactly, and has `try_parse_json`,
`try_validate_utf8` and `try_reflect`; Spark 3.5 (Databricks LTS runtimes) has none of them.
There a value is read as its JSON text and taken apart with `get_json_object`, and the checks use
3.5 built-ins. The SQL models make the same choice (macro `spark_supports_variant`), with the
same 3.5 forms (`json_has_duplicate_key`, `json_text_field_of_other_type`).
"""

from __future__ import annotations

import pyspark
from pyspark.sql import Column
from pyspark.sql import functions as F


def supports_variant() -> bool:
    """Spark 4 or later. The pyspark that runs a model's code is the Spark it runs on: embedded,
    a Spark Connect client of the server's release, or a Databricks cluster's own."""
    return int(pyspark.__version__.split(".")[0]) >= 4


def value_type() -> str:
    """The Spark type a JSON value of any type is read as (3.5: its JSON text)."""
    return "variant" if supports_variant() else "string"


def get(value: Column, path: str, type_: str) -> Column:
    """The JSON value at `path` ('$', '$.a.b') of a `value_type()` value as `type_`, or NULL.
    Spark 3.5 casts its text (non-ANSI, as the models assume: a bad value gives NULL)."""
    if supports_variant():
        return F.try_variant_get(value, path, type_)
    return (value if path == "$" else F.get_json_object(value, path)).cast(type_)


def get_sql(value: str, path: str, type_: str) -> str:
    """`get` as SQL text."""
    if supports_variant():
        return f"try_variant_get({value}, '{path}', '{type_}')"
    text = value if path == "$" else f"get_json_object({value}, '{path}')"
    return f"try_cast({text} as {type_})"


def one_json_value(json: str) -> str:
    """SQL: the text is exactly one JSON value (Spark's parser otherwise takes NaN and single
    quotes and ignores what follows a value); the macro `is_one_json_value`."""
    return (
        f"coalesce(size(from_json(concat('[', {json}, ']'), 'array<string>',"
        " map('allowNonNumericNumbers', 'false', 'allowSingleQuotes', 'false'))) = 1, false)"
    )


def has_duplicate_key(json: str) -> str:
    """SQL: one JSON value that repeats a key in one of its objects (Spark's parser keeps the
    last). Spark 3.5: the macro `json_has_duplicate_key`'s key-skeleton comparison."""
    if supports_variant():
        return f"try_parse_json({json}) is null"
    escapes_aside = rf"""regexp_replace(regexp_replace({json}, '\\\\\\\\', '\u0001'), '\\\\"', '\u0002')"""
    skeleton = rf"""array_join(transform(
        regexp_extract_all({escapes_aside}, '"[^"]*"\\s*:|"[^"]*"|[{{}}]', 0),
        token -> case
            when token in ('{{', '}}') then token
            when token rlike ':$' then concat('k', hex(regexp_extract(token, '^"([^"]*)"', 1)), ';')
            else ''
        end), '')"""
    keys = "regexp_extract_all(object, 'k[0-9A-F]*;', 0)"
    return rf"""aggregate(
        sequence(1, least(1000, greatest(1, length({json}) - length(replace({json}, '{{', ''))))),
        named_struct('rest', {skeleton}, 'repeated', false),
        (state, level) -> if(
            state.repeated or instr(state.rest, '{{') = 0,
            state,
            named_struct(
                'rest', regexp_replace(state.rest, '\\{{[^{{}}]*\\}}', ''),
                'repeated', exists(
                    regexp_extract_all(state.rest, '\\{{[^{{}}]*\\}}', 0),
                    object -> size(array_distinct({keys})) != size({keys})
                )
            )
        ),
        state -> state.repeated
    )"""


def strict_parse_fails(json: str) -> str:
    """SQL: the text is not one JSON value, or repeats a key (`try_parse_json` gives NULL)."""
    if supports_variant():
        return f"try_parse_json({json}) is null"
    return f"(not {one_json_value(json)} or {has_duplicate_key(json)})"


def text_field_of_other_type(json: str, fields: tuple[str, ...]) -> str:
    """SQL: a top-level field read as a string holds a JSON value other than a string or null.
    Spark 3.5 re-parses a field whose text looks like another type, typed as that type."""
    if supports_variant():
        kinds = ", ".join(
            f"schema_of_variant(variant_get(try_parse_json({json}), '$.{name}', 'variant'))" for name in fields
        )
        return f"coalesce(exists(array({kinds}), kind -> kind not in ('STRING', 'VOID')), false)"

    def has_type(name: str, type_: str) -> str:
        return f"from_json({json}, 'struct<`{name}`: {type_}>').`{name}` is not null"

    return " or ".join(
        f"""coalesce(try_element_at(transform(array(get_json_object({json}, '$.{name}')), text -> case
            when startswith(text, '{{') then {has_type(name, "struct<>")}
            when startswith(text, '[') then {has_type(name, "array<string>")}
            when text in ('true', 'false') then {has_type(name, "boolean")}
            when text rlike '^-?[0-9]' then {has_type(name, "double")}
        end), 1), false)"""
        for name in fields
    )


def utf8_text(bytes_: Column) -> Column:
    """Bytes as UTF-8 text, NULL when they are not UTF-8. Spark 3.5: decoding replaces what is
    not UTF-8, so the text must encode back to the same bytes."""
    text = bytes_.cast("string")
    if supports_variant():
        return F.try_validate_utf8(text)
    return F.when(F.encode(text, "UTF-8") == bytes_, text)


def zone_is_valid(zone: str) -> str:
    """SQL: a time-zone ID Java knows. Spark 3.5 parses it as a zone (`VV`) instead of
    calling ZoneId.of."""
    if supports_variant():
        return f"try_reflect('java.time.ZoneId', 'of', {zone}) is not null"
    return f"try_to_timestamp({zone}, 'VV') is not null"
