"""What OceanBase OMS Avro records (004) need that Spark SQL cannot do: the Avro binary
encoding of a shard set's images, and WKB geometries to WKT (`cdc_lakehouse.geometry`). The
staging SQL (models/staging/oms_avro) does the rest.

Shards: a record too large for one message comes as `total` records whose
`beforeImageBytes`/`afterImageBytes` are consecutive pieces of the Avro binary encoding of the
`beforeImages`/`afterImages` arrays; base_oms_avro__records joins a complete set's pieces on its
shard 0, and `binary_values` decodes them into Avro's JSON encoding.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import fastavro
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StringType

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.json_encoding import json_encoder
from cdc_lakehouse.geometry import wkb_to_wkt

# What a JSON text holds in place of images whose bytes do not decode: it parses to no image.
UNDECODABLE = "undecodable"


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
    return _images_encoder()(images["images"])


@cache
def _images_encoder() -> Callable[[Any], str]:
    return json_encoder(image_holder_schema()["fields"][0]["type"])


@cache
def image_holder_schema() -> dict[str, Any]:
    """A record whose one field `images` is an image array: its binary encoding is the
    array's (a record adds no bytes)."""
    schema = record_schema("oms_avro")
    field = next(f for f in schema["fields"] if f["name"] == "beforeImages")
    holder = {"type": "record", "name": "ImageHolder", "namespace": schema["namespace"],
              "fields": [{"name": "images", "type": field["type"][1]}]}  # fmt: skip
    parsed: dict[str, Any] = fastavro.parse_schema(holder)
    return parsed


def geometry_wkts(*images_json: str | None) -> dict[str, str]:
    """WKT by the WKB's bytes in upper-case hex, for every GeometryValue (any namespace) of the
    images (each the JSON text of a record's image array, or of a whole record, in Avro's JSON
    encoding) whose WKB reads."""
    wkts: dict[str, str] = {}
    for text in images_json:
        try:
            value = json.loads(text) if text else None
        except ValueError:
            continue
        for union in _geometry_values(value):
            wkb = union.get("wkb") if isinstance(union, dict) else None
            if isinstance(wkb, str) and all(ord(char) < 256 for char in wkb):
                wkt = wkb_to_wkt(wkb.encode("latin-1"))
                if wkt is not None:
                    wkts[wkb.encode("latin-1").hex().upper()] = wkt
    return wkts


def _geometry_values(value: Any) -> list[Any]:
    """Every GeometryValue record nested in a JSON value."""
    if isinstance(value, list):
        return [found for item in value for found in _geometry_values(item)]
    if not isinstance(value, dict):
        return []
    return [
        found
        for key, item in value.items()
        for found in ([item] if key.rpartition(".")[2] == "GeometryValue" else _geometry_values(item))
    ]


def shard_images_json(image_bytes: str) -> str:
    """A shard set's joined image bytes (as Avro's JSON encoding gives bytes: code points
    U+0000-U+00FF) as their image array's JSON text, else `UNDECODABLE`."""
    try:
        return images_json(image_bytes.encode("latin-1")) or UNDECODABLE
    except UnicodeEncodeError:
        return UNDECODABLE


@F.pandas_udf(StringType())  # type: ignore[call-overload]
def _images_json(image_bytes: pd.Series) -> pd.Series:
    # Binary Avro, by fastavro: spark-avro's from_avro (on the class path) gives a struct, not
    # the Avro JSON text the staging reads union branches from by name.
    return image_bytes.map(lambda text: None if pd.isna(text) else shard_images_json(text))


@F.pandas_udf(MapType(StringType(), StringType()))  # type: ignore[call-overload]
def _geometry_wkts(payload: pd.Series, before: pd.Series, after: pd.Series) -> pd.Series:
    # WKB is a recursive binary format of IEEE doubles: no Spark built-in reads it.
    texts = zip(payload, before, after, strict=True)
    return pd.Series([geometry_wkts(*(None if pd.isna(text) else text for text in row)) for row in texts])


def binary_values(records: DataFrame) -> DataFrame:
    """One row per record of base_oms_avro__records (file_path, line_number): its shard set's
    images in Avro's JSON encoding where it is a set's shard 0 (`UNDECODABLE` where the bytes do
    not decode), and the WKT of its geometries. Python runs only for records that hold either."""
    needs_python = (
        F.col("before_image_bytes").isNotNull()
        | F.col("after_image_bytes").isNotNull()
        | F.col("payload").contains("GeometryValue")
    )
    decoded = (
        records.where(needs_python)
        .select(
            "file_path",
            "line_number",
            "payload",
            _images_json("before_image_bytes").alias("before_images_json"),
            _images_json("after_image_bytes").alias("after_images_json"),
        )
        .select(
            "file_path",
            "line_number",
            "before_images_json",
            "after_images_json",
            _geometry_wkts("payload", "before_images_json", "after_images_json").alias("geometry_wkt"),
        )
    )
    others = records.where(~needs_python).select(
        "file_path",
        "line_number",
        F.lit(None).cast("string").alias("before_images_json"),
        F.lit(None).cast("string").alias("after_images_json"),
        F.lit(None).cast("map<string,string>").alias("geometry_wkt"),
    )
    return decoded.unionByName(others)
