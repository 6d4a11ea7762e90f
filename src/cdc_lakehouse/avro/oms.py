"""OceanBase OMS Avro records (004), in Avro's JSON encoding, decoded to the message rows every
format's staging shares.

A landed line (or a record of a binary container, see `container.py`) is one record: one row
change, one DDL, or a BEGIN/COMMIT/HEARTBEAT control record. Decoding is Spark built-ins:
`from_json` with an explicit schema in which every union is a map from branch name to value
(004 redacts the namespace, so a branch is matched by the last segment of its name), and
higher-order functions over the `ColumnValue` arrays. Python runs only where Spark has no
built-in: WKB geometry to WKT, and the Avro binary bytes of sharded records' images.

Shards: a record too large for one message comes as `total` records (`index` 0..total-1, the
same `id`), whose `beforeImageBytes`/`afterImageBytes` are consecutive pieces of the Avro
binary encoding of the `beforeImages`/`afterImages` arrays. The piece-holding records of a
complete set become one message (at the landed position of shard 0; the others are skipped
as `shard_merged`); every record of an incomplete set is rejected as `incomplete_shards`.
"""

from __future__ import annotations

import io
import json
import struct
from functools import cache
from pathlib import Path
from typing import Any

import fastavro
import pandas as pd
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, StringType

from cdc_lakehouse import spark_json

SOURCE_FORMAT = "oms_avro"
SCHEMA_PATH = Path(__file__).with_name("schemas") / "oms_record.avsc"

ROW_OPERATIONS = ("INSERT", "UPDATE", "DELETE")
CONTROL_OPERATIONS = ("BEGIN", "COMMIT", "HEARTBEAT")
OPERATIONS = (*ROW_OPERATIONS, "DDL", *CONTROL_OPERATIONS)

# One ColumnValue: its value union as branch name -> value (variant keeps any JSON value exact).
IMAGE_TYPE = f"array<struct<`type_info`: string, `value`: map<string, {spark_json.value_type()}>>>"

# The AvroRecord in Avro's JSON encoding: each union field as a one-entry map.
RECORD_TYPE = f"""struct<
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
    `beforeImages`: map<string, {IMAGE_TYPE}>,
    `afterImages`: map<string, {IMAGE_TYPE}>,
    `sql`: map<string, string>,
    `tags`: map<string, map<string, string>>,
    `total`: int,
    `index`: int,
    `beforeImageBytes`: string,
    `afterImageBytes`: string,
    `_corrupt_record`: string
>"""

# Each union field of the record and the (last segment of the) branch it must hold.
UNION_FIELDS = {
    "version": "int",
    "operation": "Operation",
    "xid": "string",
    "txind": "TxindType",
    "position": "string",
    "timestamp": "long",
    "source": "Source",
    "schemaName": "string",
    "tableName": "string",
    "fields": "array",
    "pkIndexes": "array",
    "ukIndexes": "array",
    "beforeImages": "array",
    "afterImages": "array",
    "sql": "string",
    "tags": "map",
}

# Charset names (MySQL and Oracle spellings, lower case) a StringObject may name, and the
# repertoire a value must keep to where it is narrower than Unicode.
_UTF8_CHARSETS = ("utf8mb4", "utf-8", "al32utf8", "utf16", "utf-16", "utf16le", "utf32", "al16utf16")
_BMP_CHARSETS = ("utf8", "utf8mb3", "ucs2")
_ASCII_CHARSETS = ("ascii", "us-ascii", "us7ascii")
_LATIN1_CHARSETS = ("iso-8859-1", "we8iso8859p1")
_CP1252_CHARSETS = ("latin1", "cp1252", "we8mswin1252")  # MySQL's latin1 is cp1252
_OTHER_CHARSETS = ("binary", "gbk", "gb18030", "gb2312", "zhs16gbk", "big5", "sjis", "ujis", "euckr")
KNOWN_CHARSETS = (
    *_UTF8_CHARSETS,
    *_BMP_CHARSETS,
    *_ASCII_CHARSETS,
    *_LATIN1_CHARSETS,
    *_CP1252_CHARSETS,
    *_OTHER_CHARSETS,
)


@cache
def record_schema() -> dict[str, Any]:
    """The project's copy of 004's AvroRecord schema (namespace `com.oceanbase.oms.avro`)."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return schema


# ------------------------------------------------------------------------------ SQL pieces


def sql_list(values: tuple[str, ...]) -> str:
    return "(" + ", ".join("'" + value.replace("'", "''") + "'" for value in values) + ")"


def branch(union: str) -> str:
    """The union's branch name without namespace (NULL for the null branch)."""
    return f"substring_index(get(map_keys({union}), 0), '.', -1)"


def union_value(union: str) -> str:
    return f"get(map_values({union}), 0)"


def union_is_valid(union: str, expected: str) -> str:
    """The null branch, or exactly one entry whose branch is `expected`."""
    return f"({union} is null or (size({union}) = 1 and {branch(union)} = '{expected}'))"


def _cp1252_class() -> str:
    """A regex character class of cp1252's characters."""
    chars = sorted(set(bytes(range(256)).decode("cp1252", errors="ignore")))
    return "[" + "".join(f"\\\\x{{{ord(char):x}}}" for char in chars) + "]"


def charset_error(charset: str, text: str) -> str:
    """Why a StringObject's text cannot be in its charset, or NULL."""
    name = f"lower({charset})"
    return f"""case
        when {charset} is null or {name} not in {sql_list(KNOWN_CHARSETS)} then 'unknown_charset'
        when {name} in {sql_list(_ASCII_CHARSETS)} and not {text} rlike '^[\\\\x{{0}}-\\\\x{{7f}}]*$'
            then 'invalid_charset'
        when {name} in {sql_list(_LATIN1_CHARSETS)} and not {text} rlike '^[\\\\x{{0}}-\\\\x{{ff}}]*$'
            then 'invalid_charset'
        when {name} in {sql_list(_CP1252_CHARSETS)} and not {text} rlike '^{_cp1252_class()}*$'
            then 'invalid_charset'
        when {name} in {sql_list(_BMP_CHARSETS)} and {text} rlike '[\\\\x{{10000}}-\\\\x{{10ffff}}]'
            then 'invalid_charset'
    end"""


def fraction(nanos: str) -> str:
    """`.` and the nanoseconds' digits without trailing zeros; '' for none."""
    return (
        f"if(coalesce({nanos}, 0) = 0, '', "
        f"concat('.', regexp_replace(lpad(cast({nanos} as string), 9, '0'), '0+$', '')))"
    )


def decimal_text(value: str, scale: str) -> str:
    """A plain decimal's text with exactly `scale` fraction digits."""
    return (
        f"if({scale} = 0, {value}, concat(regexp_extract({value}, '^(-?[0-9]+)', 1), '.', "
        f"rpad(regexp_extract({value}, '\\\\.([0-9]+)$', 1), {scale}, '0')))"
    )


def _get(value: str, path: str, type_: str) -> str:
    return spark_json.get_sql(value, f"$.{path}" if path else "$", type_)


def column_value(cv: str, wkt: str) -> str:
    """One ColumnValue as struct(text, error): its canonical text, or why it has none.
    `wkt` maps a WKB's bytes to its WKT (computed apart, see `wkb_to_wkt`). A FLOAT column's
    value is printed as a float whichever branch holds it: a binary float read back by
    fastavro (5.18f is 5.179999828338623 as a Python float) may be re-encoded as a double."""
    b, v = branch(f"{cv}.value"), union_value(f"{cv}.value")
    text = _get(v, "", "string")
    bytes_ = f"encode({text}, 'ISO-8859-1')"
    latin1 = f"{text} rlike '^[\\\\x{{0}}-\\\\x{{ff}}]*$'"
    s_charset, s_value = _get(v, "charsetName", "string"), _get(v, "value", "string")
    d_value, d_scale = _get(v, "value", "string"), _get(v, "scale", "int")
    year, month, day = (_get(v, name, "int") for name in ("year", "month", "day"))
    hours, minutes, seconds = (_get(v, name, "int") for name in ("hours", "minutes", "seconds"))
    nanos = _get(v, "nanos", "int")
    date_ok = f"{year} between 0 and 9999 and {month} between 0 and 12 and {day} between 0 and 31"
    clock_ok = (
        f"{minutes} between 0 and 59 and {seconds} between 0 and 59 and coalesce({nanos}, 0) between 0 and 999999999"
    )
    epoch, zone = _get(v, "seconds", "bigint"), f"coalesce({_get(v, 'timezone.string', 'string')}, 'UTC')"
    zone_ok = spark_json.zone_is_valid(zone)
    bits = _get(v, "value", "string")
    srid, wkb = _get(v, "srid", "int"), f"encode({_get(v, 'wkb', 'string')}, 'ISO-8859-1')"

    def ok(expr: str) -> str:
        return f"named_struct('text', {expr}, 'error', cast(null as string))"

    def bad(reason: str) -> str:
        return f"named_struct('text', cast(null as string), 'error', '{reason}')"

    return f"""case
        when {cv}.value is null then {ok("cast(null as string)")}
        when size({cv}.value) != 1 then {bad("invalid_union")}
        when {b} in ('int', 'long') then
            if({_get(v, "", "bigint")} is null, {bad("invalid_number")}, {ok(f"cast({_get(v, '', 'bigint')} as string)")})
        when {b} = 'boolean' then
            if({_get(v, "", "boolean")} is null, {bad("invalid_boolean")}, {ok(f"cast({_get(v, '', 'boolean')} as string)")})
        when {b} = 'float' or ({b} = 'double' and {cv}.type_info = 'FLOAT') then
            if({_get(v, "", "float")} is null, {bad("invalid_number")}, {ok(f"cast({_get(v, '', 'float')} as string)")})
        when {b} = 'double' then
            if({_get(v, "", "double")} is null, {bad("invalid_number")}, {ok(f"cast({_get(v, '', 'double')} as string)")})
        when {b} = 'string' then {ok(text)}
        when {b} = 'bytes' then if({latin1}, {ok(f"hex({bytes_})")}, {bad("invalid_bytes")})
        when {b} = 'StringObject' then
            if({charset_error(s_charset, s_value)} is null, {ok(s_value)},
               named_struct('text', cast(null as string), 'error', {charset_error(s_charset, s_value)}))
        when {b} = 'DecimalObject' then
            if({d_value} rlike '^-?[0-9]+(\\\\.[0-9]+)?$' and {d_scale} >= 0
               and length(regexp_extract({d_value}, '\\\\.([0-9]+)$', 1)) <= {d_scale},
               {ok(decimal_text(d_value, d_scale))}, {bad("invalid_decimal")})
        when {b} = 'DateObject' then
            if({date_ok}, {ok(f"format_string('%04d-%02d-%02d', {year}, {month}, {day})")}, {bad("invalid_date")})
        when {b} = 'TimeObject' then
            if({hours} between 0 and 838 and {clock_ok},
               {ok(f"concat(if(coalesce({_get(v, 'negative', 'boolean')}, false), '-', ''), format_string('%02d:%02d:%02d', {hours}, {minutes}, {seconds}), {fraction(nanos)})")},
               {bad("invalid_time")})
        when {b} = 'DateTimeObject' then
            if({date_ok} and {hours} between 0 and 23 and {clock_ok},
               {ok(f"concat(format_string('%04d-%02d-%02d %02d:%02d:%02d', {year}, {month}, {day}, {hours}, {minutes}, {seconds}), {fraction(nanos)})")},
               {bad("invalid_datetime")})
        when {b} = 'TimestampObject' then
            case
                when {epoch} is null or not coalesce({nanos} between 0 and 999999999, false) then {bad("invalid_timestamp")}
                when not {zone_ok} then {bad("invalid_time_zone")}
                else {ok(f"concat(date_format(from_utc_timestamp(timestamp_seconds({epoch}), {zone}), 'yyyy-MM-dd HH:mm:ss'), {fraction(nanos)})")}
            end
        when {b} = 'BitObject' then
            if({bits} rlike '^[01]{{1,64}}$', {ok(f"conv({bits}, 2, 10)")}, {bad("invalid_bit")})
        when {b} = 'EnumSetValue' then
            if({s_value} is null, {bad("invalid_enum_set")}, {ok(s_value)})
        when {b} = 'GeometryValue' then
            if({srid} is not null and {latin1.replace(text, _get(v, "wkb", "string"))}
               and try_element_at({wkt}, {wkb}) is not null,
               {ok(f"concat('SRID=', {srid}, ';', try_element_at({wkt}, {wkb}))")}, {bad("invalid_wkb")})
        else {bad("unknown_value_branch")}
    end"""


def geometry_wkbs(images: str) -> str:
    """The distinct WKB bytes of every GeometryValue in an array of images."""
    cv = "geometry_value"
    wkb = _get(union_value(f"{cv}.value"), "wkb", "string")
    return f"""array_distinct(transform(
        filter(flatten({images}), {cv} -> size({cv}.value) = 1 and {branch(f"{cv}.value")} = 'GeometryValue'
            and {wkb} rlike '^[\\\\x{{0}}-\\\\x{{ff}}]*$'),
        {cv} -> encode({wkb}, 'ISO-8859-1')
    ))"""


# ------------------------------------------------------------------------- Python-only parts


def wkb_to_wkt(wkb: bytes) -> str | None:
    """WKT of a WKB (ISO or EWKB, either byte order, Z/M coordinates); None when broken."""
    try:
        text, end = _read_geometry(wkb, 0)
    except (IndexError, ValueError, KeyError):
        return None
    return text if end == len(wkb) else None


_KINDS = {
    1: "POINT",
    2: "LINESTRING",
    3: "POLYGON",
    4: "MULTIPOINT",
    5: "MULTILINESTRING",
    6: "MULTIPOLYGON",
    7: "GEOMETRYCOLLECTION",
}


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e17 else repr(value)


def _read_geometry(wkb: bytes, at: int) -> tuple[str, int]:
    order = {0: "big", 1: "little"}[wkb[at]]
    code = int.from_bytes(wkb[at + 1 : at + 5], order)
    at += 5
    if code & 0x20000000:  # EWKB SRID flag: the SRID follows (the record carries its own)
        at += 4
    has_z = bool(code & 0x80000000) or code % 0x20000000 // 1000 in (1, 3)
    has_m = bool(code & 0x40000000) or code % 0x20000000 // 1000 in (2, 3)
    code &= 0x0FFFFFFF
    if code // 1000 > 3:
        raise ValueError("unknown geometry type")
    kind = _KINDS[code % 1000]
    suffix = " " + "Z" * has_z + "M" * has_m + " " if has_z or has_m else ""
    body, at = _read_body(wkb, at, order, kind, 2 + has_z + has_m)
    return f"{kind}{suffix}{body}", at


def _read_points(wkb: bytes, at: int, order: str, dims: int, count: int) -> tuple[str, int]:
    fmt = ("<" if order == "little" else ">") + "d" * dims
    points = []
    for _ in range(count):
        chunk = wkb[at : at + 8 * dims]
        if len(chunk) != 8 * dims:
            raise ValueError("truncated")
        points.append(" ".join(_number(x) for x in struct.unpack(fmt, chunk)))
        at += 8 * dims
    return ",".join(points), at


def _read_count(wkb: bytes, at: int, order: str) -> tuple[int, int]:
    if at + 4 > len(wkb):
        raise ValueError("truncated")
    count = int.from_bytes(wkb[at : at + 4], order)
    if count > len(wkb):
        raise ValueError("impossible count")
    return count, at + 4


def _read_body(wkb: bytes, at: int, order: str, kind: str, dims: int) -> tuple[str, int]:
    if kind == "POINT":
        text, at = _read_points(wkb, at, order, dims, 1)
        return f"({text})", at
    count, at = _read_count(wkb, at, order)
    if kind == "LINESTRING":
        text, at = _read_points(wkb, at, order, dims, count)
        return f"({text})", at
    parts = []
    for _ in range(count):
        if kind == "POLYGON":
            ring_count, at = _read_count(wkb, at, order)
            ring, at = _read_points(wkb, at, order, dims, ring_count)
            parts.append(f"({ring})")
        else:
            member, at = _read_geometry(wkb, at)
            parts.append(member if kind == "GEOMETRYCOLLECTION" else member[member.index("(") :])
    return "(" + ",".join(parts) + ")", at


def images_json(image_bytes: bytes) -> str | None:
    """A reassembled shard set's image bytes (the Avro binary encoding of an array of
    ColumnValue) as that array in Avro's JSON encoding; None when they do not decode."""
    holder = image_holder_schema()
    buffer = io.BytesIO(image_bytes)
    try:
        images = fastavro.schemaless_reader(buffer, holder, None, return_record_name=True)
    except Exception:  # fastavro raises many kinds on bad bytes (EOFError, ValueError, ...)
        return None
    if buffer.tell() != len(image_bytes):
        return None
    out = io.StringIO()
    fastavro.json_writer(out, holder, [images])
    return json.dumps(json.loads(out.getvalue())["images"])


@cache
def image_holder_schema() -> dict[str, Any]:
    """A record whose one field `images` is an image array: its binary encoding is the
    array's (a record adds no bytes), and fastavro's JSON writer needs a record."""
    schema = record_schema()
    field = next(f for f in schema["fields"] if f["name"] == "beforeImages")
    holder = {
        "type": "record",
        "name": "ImageHolder",
        "namespace": schema["namespace"],
        "fields": [{"name": "images", "type": field["type"][1]}],
    }
    parsed: dict[str, Any] = fastavro.parse_schema(holder)
    return parsed


@F.pandas_udf(ArrayType(StringType()))  # type: ignore[call-overload]
def _wkts(wkbs: pd.Series) -> pd.Series:
    # WKB is a recursive binary format of IEEE doubles: no Spark built-in parses it.
    return wkbs.map(lambda values: None if values is None else [wkb_to_wkt(bytes(v)) for v in values])


@F.pandas_udf(StringType())  # type: ignore[call-overload]
def _images_json(image_bytes: pd.Series) -> pd.Series:
    # Binary Avro: Spark has no built-in decoder here (spark-avro is not shipped with pyspark).
    return image_bytes.map(lambda value: None if value is None else images_json(bytes(value)))


# ------------------------------------------------------------------------------- the model


def parse_records(landed: DataFrame) -> DataFrame:
    """Landing rows (file_path, line_number, payload, landed_at) with the parsed `record`."""
    return landed.withColumn("record", F.from_json("payload", RECORD_TYPE))


def parse_rejection_reason() -> Column:
    """Why a landed line is not a usable record, before its values are decoded."""
    unions = " and ".join(union_is_valid(f"record.{name}", kind) for name, kind in UNION_FIELDS.items())
    # Spark's parser takes NaN, ignores what follows a value and keeps the last of a repeated
    # key: a line it reads that is still one JSON value repeats a key.
    parse_fails = spark_json.strict_parse_fails("payload")
    return F.expr(f"""case
        when payload is null then 'invalid_avro_container'
        when payload rlike '^\\\\s*$' then 'empty_line'
        when regexp_extract(payload, '^\\\\s*(.)', 1) != '{{' then
            if({parse_fails}, 'malformed_json', 'not_a_json_object')
        when {parse_fails} and {spark_json.one_json_value("payload")} then 'duplicate_key'
        when record._corrupt_record is not null then
            if({parse_fails}, 'malformed_json', 'invalid_field_type')
        when not ({unions}) then 'unknown_union_branch'
        when record.operation is null then 'missing_event_type'
        when {union_value("record.operation")} not in {sql_list(OPERATIONS)} then 'unknown_event_type'
    end""")


def with_fields(records: DataFrame) -> DataFrame:
    """The record's union fields unwrapped, as columns."""
    names = {
        "operation": "operation",
        "xid": "transaction_id",
        "txind": "transaction_flag",
        "position": "source_position",
        "schemaName": "database_name",
        "tableName": "table_name",
        "sql": "sql_text",
        "fields": "fields",
        "pkIndexes": "pk_indexes",
        "ukIndexes": "uk_indexes",
        "beforeImages": "before_images",
        "afterImages": "after_images",
        "timestamp": "epoch_seconds",
        "source": "source",
    }
    return records.withColumns({column: F.expr(union_value(f"record.{field}")) for field, column in names.items()})


def reassemble_shards(records: DataFrame) -> DataFrame:
    """Shard records (total >= 1) with each complete set's images on its shard 0, and the
    outcome of the others (`shard_reason`)."""
    first_copy = Window.partitionBy("record.id", "record.index").orderBy("file_path", "line_number")
    shard_set = Window.partitionBy("record.id")
    firsts = records.withColumn("shard_copy", F.row_number().over(first_copy))
    pieces = F.collect_list(
        F.when(
            F.col("shard_copy") == 1,
            F.struct(
                F.col("record.index").alias("index"),
                F.col("record.total").alias("total"),
                F.col("record.beforeImageBytes").alias("before"),
                F.col("record.afterImageBytes").alias("after"),
            ),
        )
    ).over(shard_set)
    sets = firsts.withColumn("pieces", F.array_sort(pieces))
    complete = F.expr(
        "transform(pieces, piece -> piece.index) = sequence(0, record.total - 1)"
        " and forall(pieces, piece -> piece.total = record.total)"
    )

    def joined(side: str) -> Column:
        text = F.expr(f"array_join(transform(pieces, piece -> piece.{side}), '')")
        # Bytes that do not decode leave JSON that parses to nothing: invalid_shard_bytes.
        return F.when(text != "", F.coalesce(_images_json(F.encode(text, "ISO-8859-1")), F.lit("undecodable")))

    is_head = (F.col("shard_copy") == 1) & (F.col("record.index") == 0) & complete
    return sets.withColumns(
        {
            "shard_reason": F.when(F.col("shard_copy") > 1, F.lit("duplicate_shard"))
            .when(~complete, F.lit("incomplete_shards"))
            .when(F.col("record.index") != 0, F.lit("shard_merged")),
            "before_shard_json": F.when(is_head, joined("before")),
            "after_shard_json": F.when(is_head, joined("after")),
        }
    ).drop("shard_copy", "pieces")


def _images_from(shard_json: str, images: str) -> Column:
    """The images a shard set's bytes spell, else the record's own."""
    return F.expr(f"if({shard_json} is null, {images}, from_json({shard_json}, '{IMAGE_TYPE}'))")


def decode_images(messages: DataFrame) -> DataFrame:
    """Before/after images as column-name -> canonical text maps, with the first bad value's
    reason (`value_error`)."""
    names = "transform(fields, field -> field.name)"
    wkbs = F.expr(geometry_wkbs("filter(array(before_images, after_images), image -> image is not null)"))
    with_wkt = messages.withColumn("wkt", F.when(F.size(wkbs) > 0, wkbs))
    with_wkt = with_wkt.withColumn("wkt", F.when(F.col("wkt").isNotNull(), F.map_from_arrays("wkt", _wkts("wkt"))))
    decoded = {
        side: F.expr(f"transform({side}_images, cv -> {column_value('cv', 'wkt')})") for side in ("before", "after")
    }
    out = with_wkt.withColumns({f"{side}_values": column for side, column in decoded.items()})
    image_ok = f"(size(array_compact({names})) = size(fields) and size(array_distinct({names})) = size(fields))"
    return out.withColumns(
        {
            "fields_valid": F.expr(image_ok),
            "value_error": F.expr(
                "coalesce(get(filter(transform(before_values, v -> v.error), e -> e is not null), 0),"
                " get(filter(transform(after_values, v -> v.error), e -> e is not null), 0))"
            ),
            **{
                f"{side}_image": F.expr(
                    f"if({image_ok} and size({side}_values) = size(fields),"
                    f" map_from_arrays({names}, transform({side}_values, v -> v.text)), null)"
                )
                for side in ("before", "after")
            },
        }
    ).drop("wkt", "before_values", "after_values")


def key_columns(indexes: str) -> str:
    """Column names of an index array, NULL when any index is out of range."""
    return (
        f"if(forall({indexes}, i -> i between 0 and size(fields) - 1),"
        f" transform({indexes}, i -> get(fields, i).name), null)"
    )


def message_rejection_reason() -> Column:
    """Why a parsed record is not a usable message (NULL when it is, or is a control record)."""
    return F.expr(f"""coalesce(parse_reason, shard_reason, case
        when operation in {sql_list(CONTROL_OPERATIONS)} then null
        when coalesce(database_name, '') = '' then 'missing_database'
        when operation = 'DDL' then if(coalesce(sql_text, '') = '', 'missing_sql', null)
        when coalesce(table_name, '') = '' then 'missing_table'
        when size(coalesce(fields, array())) < 1 then 'missing_fields'
        when not fields_valid then 'invalid_fields'
        when operation in ('INSERT', 'UPDATE') and after_images is null then 'missing_row_image'
        when operation in ('DELETE', 'UPDATE') and before_images is null then 'missing_row_image'
        when (before_images is not null and size(before_images) != size(fields))
            or (after_images is not null and size(after_images) != size(fields)) then 'image_field_count_mismatch'
        when {key_columns("coalesce(pk_indexes, array())")} is null
            or exists(coalesce(uk_indexes, array()), uk -> {key_columns("uk")} is null) then 'invalid_key_index'
        else value_error
    end)""")


def decode_messages(landed: DataFrame) -> DataFrame:
    """One row per landed record with its disposition, as every format's base model gives."""
    parsed = parse_records(landed).withColumn("parse_reason", parse_rejection_reason())
    # Only shard records go through the (shuffling) reassembly; a cheap text test routes them.
    maybe_shard = F.coalesce(F.col("payload").rlike('"total"\\s*:\\s*[1-9]'), F.lit(False))
    is_shard = F.col("parse_reason").isNull() & (F.col("record.total") >= 1)
    shards = reassemble_shards(parsed.where(maybe_shard & is_shard))
    others = parsed.where(~(maybe_shard & is_shard)).withColumns(
        {
            "shard_reason": F.lit(None).cast("string"),
            "before_shard_json": F.lit(None).cast("string"),
            "after_shard_json": F.lit(None).cast("string"),
        }
    )
    records = with_fields(shards.unionByName(others))
    records = records.withColumns(
        {
            "before_images": _images_from("before_shard_json", "before_images"),
            "after_images": _images_from("after_shard_json", "after_images"),
        }
    ).withColumn(
        "shard_reason",
        F.coalesce(
            "shard_reason",
            F.when(
                (F.col("before_shard_json").isNotNull() & F.col("before_images").isNull())
                | (F.col("after_shard_json").isNotNull() & F.col("after_images").isNull()),
                F.lit("invalid_shard_bytes"),
            ),
        ),
    )
    decoded = decode_images(records).withColumn("rejection_reason", message_rejection_reason())
    return decoded.select(*_message_columns())


def _message_columns() -> list[Column]:
    reason, operation = F.col("rejection_reason"), F.col("operation")
    usable = reason.isNull() & operation.isin(*ROW_OPERATIONS)
    disposition = (
        F.when(F.col("shard_reason").isin("shard_merged", "duplicate_shard"), F.lit("skipped"))
        .when(reason.isNotNull(), F.lit("rejected"))
        .when(operation.isin(*CONTROL_OPERATIONS), F.lit("skipped"))
        .when(operation == "DDL", F.lit("schema_change"))
        .otherwise(F.lit("row_change"))
    )
    keys = F.expr(
        f"coalesce(nullif({key_columns('coalesce(pk_indexes, array())')}, array()),"
        f" {key_columns('get(coalesce(uk_indexes, array()), 0)')})"
    )
    return [
        F.lit(SOURCE_FORMAT).alias("source_format"),
        "file_path",
        "line_number",
        F.lit(0).alias("message_index"),
        "landed_at",
        "payload",
        F.col("payload").alias("message_json"),
        disposition.alias("disposition"),
        F.coalesce(
            reason,
            F.when(operation.isin(*CONTROL_OPERATIONS), F.lit("control_event")),
        ).alias("disposition_reason"),
        F.col("record.id").cast("string").alias("message_id"),
        F.expr("nullif(database_name, '')").alias("database_name"),
        F.expr("nullif(table_name, '')").alias("table_name"),
        operation.alias("event_type"),
        "transaction_id",
        "transaction_flag",
        F.when(usable, keys).alias("key_columns"),
        F.when(
            usable,
            F.expr(f"transform(coalesce(uk_indexes, array()), uk -> {key_columns('uk')})"),
        ).alias("unique_key_columns"),
        F.expr("if(epoch_seconds > 0, timestamp_seconds(epoch_seconds), null)").alias("event_at"),
        F.lit(None).cast("timestamp").alias("emitted_at"),
        "source_position",
        F.expr("nullif(sql_text, '')").alias("sql_text"),
        F.when(
            usable,
            F.expr(
                "map_from_arrays(transform(fields, field -> field.name),"
                " transform(coalesce(after_images, before_images), cv -> cv.type_info))"
            ),
        ).alias("column_types"),
        F.when(
            usable,
            F.expr(
                "map_from_arrays(transform(fields, field -> field.name),"
                " transform(fields, field -> field.dataTypeNumber))"
            ),
        ).alias("column_type_numbers"),
        "before_image",
        "after_image",
    ]
