"""Aliyun DTS Avro records (the DTS subscription `Record`, schemas/dts_record.avsc, as the DTS
subscribe SDK defines it) decoded with Spark built-ins into the message shape the JSON formats'
base models give.

A record arrives in Avro's JSON encoding (a JSON-encoded landed line, or a binary container's
record as `container.landed_container_records` gives it): unions are `null` or wrapped as
`{"<type name>": value}`, bytes are strings of code points U+0000-U+00FF. `from_json` parses a
record with an explicit schema; each image value (one union branch of Integer, Character,
Decimal, ..., EmptyObject) is read as a variant and turned into the canonical text canal gives
for the same value by higher-order functions: no Python runs per row.

Canonical text of a value, by branch (the branch matched by its name's last segment):
- Integer, Decimal: the `value` text as sent (exact); it must be a number.
- Float: the double's text.
- Character: `value`'s bytes decoded by `charset` (utf8/utf8mb3/utf8mb4 as UTF-8; latin1, ascii
  and binary as the bytes' ISO-8859-1 text, as canal gives binary); other charsets are rejected.
- DateTime: "YYYY-MM-DD HH:MM:SS[.ffffff]" from the parts present (DATE: the date, TIME: the
  time, YEAR: the year); the fraction without trailing zeros. `millis` holds microseconds (the
  SDK reads it as such), so datetime(6) keeps all six digits.
- Timestamp: `timestamp` (epoch seconds) plus `millis` (microseconds) as UTC text, same form.
- TimestampWithTimeZone: the DateTime text, a space, `timezone`.
- BinaryObject, BinaryGeometry: the bytes' ISO-8859-1 text (what canal gives for binary
  columns); a geometry must start with a WKB header (optionally after MySQL's 4-byte SRID).
- TextObject, TextGeometry: `value`.
- EmptyObject: NULL is SQL NULL; NONE means the column is not in the image.
A value that is none of these, or not what its branch says, rejects the message with a reason.
"""

from __future__ import annotations

import json
import operator
from functools import reduce
from importlib import resources
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from cdc_lakehouse import spark_json

NAME = "dts_avro"
ROW_OPERATIONS = ("INSERT", "UPDATE", "DELETE")
SCHEMA_OPERATIONS = ("DDL",)
# Every other symbol of the Operation enum: transaction and stream control, no rows.
CONTROL_OPERATIONS = (
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "ABORT",
    "HEARTBEAT",
    "CHECKPOINT",
    "COMMAND",
    "FILL",
    "FINISH",
    "CONTROL",
    "RDB",
    "NOOP",
    "INIT",
)
UTF8_CHARSETS = ("utf8", "utf8mb3", "utf8mb4")
# Charsets whose bytes are their text read as ISO-8859-1 (canal's text for binary columns).
BYTE_CHARSETS = ("latin1", "binary")

# The record's unions and their branches (Avro's JSON encoding names a branch by its type).
UNIONS = {
    "objectName": ("string",),
    "processTimestamps": ("array",),
    "fields": ("string", "array"),
    "beforeImages": ("string", "array"),
    "afterImages": ("string", "array"),
}
# String fields: Spark's parser reads any JSON value given for one as its text.
TEXT_FIELDS = ("sourcePosition", "safeSourcePosition", "sourceTxid", "operation")

_IMAGE = f"struct<`string`: string, `array`: array<map<string, {spark_json.value_type()}>>>"
# The record in Avro's JSON encoding; only the fields the staging reads are typed.
MESSAGE_SCHEMA = (
    "struct<"
    "`version`: int, `id`: bigint, `sourceTimestamp`: bigint, `sourcePosition`: string, "
    "`safeSourcePosition`: string, `sourceTxid`: string, "
    "`source`: struct<`sourceType`: string, `version`: string>, "
    "`operation`: string, "
    "`objectName`: struct<`string`: string>, "
    "`processTimestamps`: struct<`array`: array<bigint>>, "
    "`tags`: map<string, string>, "
    "`fields`: struct<`string`: string, `array`: array<struct<`name`: string, `dataTypeNumber`: int>>>, "
    f"`beforeImages`: {_IMAGE}, `afterImages`: {_IMAGE}, "
    "`_corrupt_record`: string>"
)


def record_schema() -> dict[str, Any]:
    """The DTS Avro `Record` schema (package data)."""
    text = resources.files("cdc_lakehouse.avro").joinpath("schemas/dts_record.avsc").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def _is(condition: Column) -> Column:
    """A condition that is false, not NULL, where its input is NULL."""
    return F.coalesce(condition, F.lit(False))


def _size(array_or_map: Column) -> Column:
    """Element count, -1 for NULL whether or not Spark runs with ANSI semantics."""
    return F.coalesce(F.size(array_or_map), F.lit(-1))


def _byte_string_ok(text: Column) -> Column:
    """Avro's JSON encoding of bytes: code points U+0000-U+00FF only."""
    return _is(text.rlike(r"^[\x00-\xFF]*$"))


def _wkb_header_ok(text: Column) -> Column:
    """A WKB header (byte order 0/1, geometry type 1-7) at the start of a byte string."""
    little = (
        (F.substring(text, 1, 1) == "\x01")
        & (F.substring(text, 3, 3) == "\x00\x00\x00")
        & (F.substring(text, 2, 1).between("\x01", "\x07"))
    )
    big = (
        (F.substring(text, 1, 1) == "\x00")
        & (F.substring(text, 2, 3) == "\x00\x00\x00")
        & (F.substring(text, 5, 1).between("\x01", "\x07"))
    )
    return _is((F.length(text) >= 5) & (little | big))


def geometry_ok(text: Column) -> Column:
    """WKB, or MySQL's internal form: a 4-byte SRID, then WKB."""
    return _wkb_header_ok(text) | _wkb_header_ok(F.substring(text, 5, 1 << 30))


def _two(part: Column) -> Column:
    return F.lpad(part.cast("string"), 2, "0")


def _fraction(micros: Column) -> Column:
    """ ".ffffff" without trailing zeros; empty for whole seconds."""
    return F.when(micros > 0, F.concat(F.lit("."), F.regexp_replace(F.lpad(micros.cast("string"), 6, "0"), "0+$", "")))


def datetime_text(value: Column, prefix: str) -> tuple[Column, Column]:
    """(text, is_valid) of a DateTime record at `prefix` of a variant (parts are int unions)."""

    def part(name: str) -> Column:
        return spark_json.get(value, f"{prefix}.{name}.int", "int")

    year, month, day = part("year"), part("month"), part("day")
    hour, minute, second, micros = part("hour"), part("minute"), part("second"), part("millis")
    date_text = F.concat_ws("-", F.lpad(year.cast("string"), 4, "0"), _two(month), _two(day))
    time_text = F.when(
        hour.isNotNull(),
        F.concat(
            _two(hour),
            F.lit(":"),
            _two(F.coalesce(minute, F.lit(0))),
            F.lit(":"),
            _two(F.coalesce(second, F.lit(0))),
            F.coalesce(_fraction(micros), F.lit("")),
        ),
    )
    text = F.nullif(F.concat_ws(" ", F.nullif(date_text, F.lit("")), time_text), F.lit(""))
    valid = (
        _is(year.isNotNull() | hour.isNotNull())
        & _is(F.coalesce(month, F.lit(0)).between(0, 12))
        & _is(F.coalesce(day, F.lit(0)).between(0, 31))
        & _is(F.coalesce(minute, F.lit(0)).between(0, 59))
        & _is(F.coalesce(second, F.lit(0)).between(0, 59))
        & _is(F.coalesce(micros, F.lit(0)).between(0, 999_999))
    )
    return text, valid


def union_branch(item: Column) -> Column:
    """One image value (a union branch as map<string, variant>) as struct<item, branch (the
    type name's last segment), value (the branch's variant), raw (its `value` field as text)>,
    worked out once per value: lambdas are evaluated without common subexpressions."""
    value = F.try_element_at(F.map_values(item), F.lit(1))
    return F.struct(
        item.alias("item"),
        F.regexp_extract(F.try_element_at(F.map_keys(item), F.lit(1)), r"([^.]*)$", 1).alias("branch"),
        value.alias("value"),
        spark_json.get(value, "$.value", "string").alias("raw"),
    )


def value_text(union: Column) -> Column:
    """One `union_branch` as struct<present: boolean, text: string, reason: string>: `present`
    is false for EmptyObject NONE, `reason` says why the value is unusable (NULL when fine)."""
    item, branch, value, raw = union["item"], union["branch"], union["value"], union["raw"]

    def get(path: str, target: str = "string") -> Column:
        return spark_json.get(value, path, target)

    bytes_ok = _byte_string_ok(raw)
    charset = F.lower(get("$.charset"))
    # encode() fails on code points above U+00FF, so it only runs on checked byte strings.
    utf8_text = F.when(bytes_ok, spark_json.utf8_text(F.encode(raw, "ISO-8859-1")))
    character_text = (
        F.when(charset.isin(*UTF8_CHARSETS), utf8_text)
        .when(charset.isin(*BYTE_CHARSETS), raw)
        .when((charset == "ascii") & _is(raw.rlike(r"^[\x00-\x7F]*$")), raw)
    )
    character_reason = (
        F.when(~bytes_ok, "invalid_value")
        .when(~_is(charset.isin(*UTF8_CHARSETS, *BYTE_CHARSETS, "ascii")), "unsupported_charset")
        .when(character_text.isNull(), "invalid_character_value")
    )
    epoch_seconds, micros = get("$.timestamp", "bigint"), get("$.millis", "int")
    timestamp_ok = _is(F.abs(epoch_seconds) <= 253_402_300_799) & _is(micros.between(0, 999_999))
    timestamp_text = F.when(
        timestamp_ok,
        # Spark's timestamp text drops trailing fraction zeros, as the DateTime text does.
        F.timestamp_micros(epoch_seconds * 1_000_000 + micros).cast("string"),
    )
    datetime_value, datetime_ok = datetime_text(value, "$")
    zoned_value, zoned_ok = datetime_text(value, "$.value")
    timezone = get("$.timezone")
    empty = get("$")

    text = (
        F.when(
            branch.isin("Integer", "Decimal", "Float", "TextObject", "TextGeometry", "BinaryObject", "BinaryGeometry"),
            raw,
        )
        .when(branch == "Character", character_text)
        .when(branch == "Timestamp", timestamp_text)
        .when(branch == "DateTime", datetime_value)
        .when(branch == "TimestampWithTimeZone", F.concat_ws(" ", zoned_value, timezone))
    )
    reason = (
        F.when(item.isNull(), F.lit(None))
        .when(_size(item) != 1, "invalid_value")
        .when(branch == "Integer", F.when(~_is(raw.rlike(r"^-?[0-9]+$")), "invalid_value"))
        .when(branch == "Decimal", F.when(~_is(raw.rlike(r"^-?[0-9]+(\.[0-9]+)?$")), "invalid_value"))
        .when(branch == "Float", F.when(get("$.value", "double").isNull(), "invalid_value"))
        .when(branch == "Character", character_reason)
        .when(branch == "Timestamp", F.when(~timestamp_ok, "invalid_value"))
        .when(branch == "DateTime", F.when(~datetime_ok, "invalid_value"))
        .when(branch == "TimestampWithTimeZone", F.when(~zoned_ok | timezone.isNull(), "invalid_value"))
        .when(branch.isin("TextObject", "TextGeometry"), F.when(raw.isNull(), "invalid_value"))
        .when(branch == "BinaryObject", F.when(~bytes_ok, "invalid_value"))
        .when(
            branch == "BinaryGeometry", F.when(~bytes_ok, "invalid_value").when(~geometry_ok(raw), "invalid_geometry")
        )
        .when(branch == "EmptyObject", F.when(~_is(empty.isin("NULL", "NONE")), "invalid_value"))
        .otherwise("unknown_value_type")
    )
    present = ~_is((branch == "EmptyObject") & (empty == "NONE"))
    return F.struct(
        present.alias("present"),
        F.when(reason.isNull(), text).alias("text"),
        reason.alias("reason"),
    )


def first_reason(values: Column) -> Column:
    """The first value's rejection reason in an array of `value_text` structs, else NULL."""
    reasons = F.filter(F.transform(values, lambda value: value.reason), lambda reason: reason.isNotNull())
    return F.try_element_at(reasons, F.lit(1))


def image_map(names: Column, values: Column) -> Column:
    """Column name -> text for the present values (names and values of equal length, names
    distinct and not NULL: `image_reason` checks that first)."""
    entries = F.zip_with(names, values, lambda name, value: F.struct(name.alias("key"), value.alias("value")))
    present = F.filter(entries, lambda entry: entry.value.present)
    return F.map_from_entries(F.transform(present, lambda entry: F.struct(entry.key, entry.value.text)))


def image_reason(names: Column, items: Column, values: Column) -> Column:
    """Why an image cannot be built from the field names and the decoded values, else NULL."""
    return F.when(_size(items) != _size(names), "invalid_row_image").otherwise(first_reason(values))


def source_position(position: Column) -> Column:
    """DTS `sourcePosition` "<offset>@<binlog file>" as "<file>:<offset>", like the other
    formats' binlog positions; any other form as sent."""
    match = r"^([0-9]+)@([^@]+)$"
    return F.when(
        _is(position.rlike(match)),
        F.concat(F.regexp_extract(position, match, 2), F.lit(":"), F.regexp_extract(position, match, 1)),
    ).otherwise(F.nullif(position, F.lit("")))


def epoch_to_timestamp(epoch: Column) -> Column:
    """Epoch seconds or milliseconds (below 1e11 is seconds), 0 or less unknown: the rule of the
    project's epoch_to_timestamp macro."""
    return (
        F.when(epoch.isNull() | (epoch <= 0), F.lit(None))
        .when(epoch < 100_000_000_000, F.timestamp_seconds(epoch))
        .otherwise(F.timestamp_millis(epoch))
    )


def _not_one_of(union: Column, branches: tuple[str, ...]) -> Column:
    """A union (as a map) that is neither null nor one entry under one of `branches`."""
    return _is(F.when(union.isNotNull(), (_size(union) != 1) | ~F.map_keys(union)[0].isin(*branches)))


def _unknown_union_branch(payload: Column) -> Column:
    """A union holds a branch its schema lacks (`from_json` would read it as the null branch)."""
    unions = F.from_json(payload, "struct<" + ", ".join(f"`{name}`: map<string, string>" for name in UNIONS) + ">")
    return reduce(operator.or_, [_not_one_of(unions[name], branches) for name, branches in UNIONS.items()])


def _message_reason(
    message: Column, payload: Column, names: Column, before_reason: Column, after_reason: Column
) -> Column:
    operation = message["operation"]
    object_name = message["objectName"].getField("string")
    return (
        F.when(payload.isNull(), "invalid_avro_container")
        .when(payload.rlike(r"^\s*$"), "empty_line")
        .when(F.from_json(F.concat(F.lit("["), payload, F.lit("]")), "array<string>").isNull(), "malformed_json")
        .when(F.substring(F.ltrim(payload), 1, 1) != "{", "not_a_json_object")
        # Spark's parser keeps the last of a repeated key and reads any JSON value given for a
        # string field as its text.
        .when(F.expr(spark_json.has_duplicate_key("payload")), "duplicate_key")
        .when(message["_corrupt_record"].isNotNull(), "invalid_field_type")
        .when(F.expr(spark_json.text_field_of_other_type("payload", TEXT_FIELDS)), "invalid_field_type")
        .when(_unknown_union_branch(payload), "unknown_union_branch")
        .when(F.coalesce(operation, F.lit("")) == "", "missing_event_type")
        .when(~operation.isin(*ROW_OPERATIONS, *SCHEMA_OPERATIONS, *CONTROL_OPERATIONS), "unknown_event_type")
        .when(operation.isin(*CONTROL_OPERATIONS), F.lit(None))
        .when(F.coalesce(F.substring_index(object_name, ".", 1), F.lit("")) == "", "missing_database")
        .when(
            operation.isin(*SCHEMA_OPERATIONS),
            F.when(F.coalesce(message["afterImages"].getField("string"), F.lit("")) == "", "missing_sql"),
        )
        .when(~_is(F.instr(object_name, ".") > 0), "missing_table")
        .when(_size(names) <= 0, "missing_columns")
        .when(F.exists(names, lambda name: F.coalesce(name, F.lit("")) == ""), "missing_columns")
        .when(_size(F.array_distinct(names)) != _size(names), "duplicate_column")
        .when((operation != "DELETE") & (_size(message["afterImages"].getField("array")) <= 0), "missing_row_image")
        .when((operation == "DELETE") & (_size(message["beforeImages"].getField("array")) <= 0), "missing_row_image")
        .when((operation == "UPDATE") & (_size(message["beforeImages"].getField("array")) <= 0), "missing_old_image")
        .otherwise(F.coalesce(before_reason, after_reason))
    )


def decode_messages(landed: DataFrame) -> DataFrame:
    """Landing rows (file_path, line_number, payload, landed_at: JSON-encoded lines and binary
    container records alike) as one message row each, with a disposition and the decoded images."""
    parsed = landed.withColumn("message", F.from_json("payload", MESSAGE_SCHEMA))
    message = F.col("message")
    decoded = parsed.withColumns(
        {
            "field_names": F.transform(message["fields"].getField("array"), lambda field: field["name"]),
            "before_values": F.transform(
                F.transform(message["beforeImages"].getField("array"), union_branch), value_text
            ),
            "after_values": F.transform(
                F.transform(message["afterImages"].getField("array"), union_branch), value_text
            ),
        }
    )
    names = F.col("field_names")
    before_items, after_items = message["beforeImages"].getField("array"), message["afterImages"].getField("array")
    operation = message["operation"]
    # An insert's before image and a delete's after image are not read even where sent.
    reason = _message_reason(
        message,
        F.col("payload"),
        names,
        F.when(operation != "INSERT", image_reason(names, before_items, F.col("before_values"))),
        F.when(operation != "DELETE", image_reason(names, after_items, F.col("after_values"))),
    )
    checked = decoded.withColumn("rejection_reason", reason)
    rejected = F.col("rejection_reason").isNotNull()
    is_row_change = ~rejected & operation.isin(*ROW_OPERATIONS)
    object_name = message["objectName"].getField("string")
    key_info = F.from_json(message["tags"]["pk_uk_info"], "map<string, array<string>>")
    return checked.select(
        F.lit(NAME).alias("source_format"),
        "file_path",
        "line_number",
        F.lit(0).alias("message_index"),
        "landed_at",
        "payload",
        F.col("payload").alias("message_json"),
        F.when(rejected, "rejected")
        .when(operation.isin(*CONTROL_OPERATIONS), "skipped")
        .when(operation.isin(*SCHEMA_OPERATIONS), "schema_change")
        .otherwise("row_change")
        .alias("disposition"),
        F.coalesce(
            F.col("rejection_reason"), F.when(operation.isin(*CONTROL_OPERATIONS), F.lit("control_event"))
        ).alias("disposition_reason"),
        message["id"].cast("string").alias("message_id"),
        F.nullif(F.substring_index(object_name, ".", 1), F.lit("")).alias("database_name"),
        F.when(F.instr(object_name, ".") > 0, object_name.substr(F.instr(object_name, ".") + 1, F.lit(1 << 30))).alias(
            "table_name"
        ),
        operation.alias("event_type"),
        epoch_to_timestamp(message["sourceTimestamp"]).alias("event_at"),
        epoch_to_timestamp(F.try_element_at(message["processTimestamps"].getField("array"), F.lit(-1))).alias(
            "emitted_at"
        ),
        source_position(message["sourcePosition"]).alias("source_position"),
        F.nullif(message["sourceTxid"], F.lit("")).alias("source_txid"),
        F.when(
            operation.isin(*SCHEMA_OPERATIONS), F.nullif(message["afterImages"].getField("string"), F.lit(""))
        ).alias("sql_text"),
        F.try_element_at(key_info, F.lit("PRIMARY")).alias("key_columns"),
        F.when(
            is_row_change,
            F.map_from_arrays(
                names, F.transform(message["fields"].getField("array"), lambda field: field["dataTypeNumber"])
            ),
        ).alias("column_type_numbers"),
        F.when(is_row_change & (operation != "INSERT"), image_map(names, F.col("before_values"))).alias("before_image"),
        F.when(is_row_change & (operation != "DELETE"), image_map(names, F.col("after_values"))).alias("after_image"),
    )
