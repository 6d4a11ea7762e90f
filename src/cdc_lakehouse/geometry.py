"""Geometries as text: `SRID=<srid>;<WKT>`, for every format.

Staging gives a geometry column's value as the bytes MySQL keeps it in, as ISO-8859-1 text: the
SRID as 4 little-endian bytes, then the WKB. That is the text canal sends; Debezium's staging
builds it from `wkb` and `srid`; DTS may send the WKB alone (its SRID is then 0). WKB is a
recursive binary format of IEEE doubles that no Spark built-in reads: Python decodes it, given
only the distinct values of each row change's geometry columns. OMS decodes its own GeometryValue records in
staging, which rejects the ones that do not read (`cdc_lakehouse.avro.oms`).

A pandas UDF passes every row of its input through Python, NULL or not, which costs more than
the rest of the lookups (docs/performance.md): a load none of whose messages types a column as a
geometry (`types_geometries`) does without it.
"""

from __future__ import annotations

import struct

import pandas as pd
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StringType

# The column types, lower-cased, whose values are geometries: MySQL's spatial types (canal's
# `mysqlType`, the DTS and Debezium seeds name them so) and PostGIS's geography.
GEOMETRY_TYPES = ("geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
                  "multipolygon", "geometrycollection", "geomcollection", "geography")  # fmt: skip


def geometry_text(value: str) -> str | None:
    """`SRID=<srid>;<WKT>` of a staged geometry; None when its bytes do not read."""
    try:
        data = value.encode("latin-1")
    except UnicodeEncodeError:
        return None
    wkt = wkb_to_wkt(data[4:])
    if wkt is not None:
        return f"SRID={int.from_bytes(data[:4], 'little')};{wkt}"
    wkt = wkb_to_wkt(data)
    return None if wkt is None else f"SRID=0;{wkt}"


def wkb_to_wkt(wkb: bytes) -> str | None:
    """WKT of a WKB (ISO or EWKB, either byte order, Z/M coordinates); None when broken."""
    try:
        text, end = _read_geometry(wkb, 0)
    except (IndexError, ValueError, KeyError, RecursionError):  # RecursionError: collections nested deep
        return None
    return text if end == len(wkb) else None


_KINDS = {1: "POINT", 2: "LINESTRING", 3: "POLYGON", 4: "MULTIPOINT", 5: "MULTILINESTRING",
          6: "MULTIPOLYGON", 7: "GEOMETRYCOLLECTION"}  # fmt: skip


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
    if body == "()":
        return f"{kind}{suffix.rstrip()} EMPTY", at
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
        # WKB has no empty point: its coordinates are NaN.
        return ("()" if set(text.split()) == {"nan"} else f"({text})"), at
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


@F.pandas_udf(MapType(StringType(), StringType()))  # type: ignore[call-overload]
def _geometry_texts(values: pd.Series) -> pd.Series:
    def texts(staged: list[str] | None) -> dict[str, str] | None:
        if staged is None:
            return None
        return {value: text for value in staged if (text := geometry_text(value)) is not None}

    return values.map(texts)


def is_geometry_type(column_type: Column) -> Column:
    """Whether a column type (a value of `column_types`) is a geometry's."""
    return F.lower(column_type).isin(*GEOMETRY_TYPES)


def types_geometries(messages: DataFrame) -> bool:
    """Whether a row of `messages` types a column as a geometry (by `column_types`)."""
    return not messages.where(F.exists(F.map_values("column_types"), is_geometry_type)).isEmpty()


def with_geometry_texts(row_changes: DataFrame) -> DataFrame:
    """Row changes whose images give each geometry column's value (by `column_types`) as
    `geometry_text` does; a value whose bytes do not read stays as staged. Python sees only the
    distinct geometry values of each row change; the others pass it a NULL."""

    def is_geometry(column_name: Column) -> Column:
        return is_geometry_type(F.try_element_at("column_types", column_name))

    def geometry_values(image: str) -> Column:
        values = F.map_values(F.map_filter(image, lambda name, value: is_geometry(name) & value.isNotNull()))
        return F.coalesce(values, F.array().cast("array<string>"))

    def decoded(image: str) -> Column:
        return F.when(F.col("geometry_texts").isNull(), F.col(image)).otherwise(
            F.transform_values(
                image,
                lambda name, value: F.when(
                    is_geometry(name), F.coalesce(F.try_element_at("geometry_texts", value), value)
                ).otherwise(value),
            )
        )

    values = F.array_distinct(F.concat(geometry_values("before_image"), geometry_values("after_image")))
    return (
        row_changes.withColumn("geometry_texts", _geometry_texts(F.when(F.size(values) > 0, values)))
        .withColumns({"before_image": decoded("before_image"), "after_image": decoded("after_image")})
        .drop("geometry_texts")
    )
