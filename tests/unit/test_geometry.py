"""Geometries as `SRID=<srid>;<WKT>`: the WKB reader, the staged bytes every format gives, and
their decoding in the row changes (`cdc_lakehouse.geometry`), with Debezium's staging."""

from __future__ import annotations

import base64
import json
import struct
from datetime import datetime
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from cdc_lakehouse.geometry import geometry_text, types_geometries, with_geometry_texts, wkb_to_wkt
from support.compiled_models import landed_file_lines, run_compiled, seed, staged


def _point(x: float, y: float, order: str = "<") -> bytes:
    return struct.pack(f"{order}BIdd", 1 if order == "<" else 0, 1, x, y)


def _mysql_value(srid: int, wkb: bytes) -> str:
    """A geometry as staging gives it: MySQL's bytes (SRID little-endian, then WKB) as ISO-8859-1 text."""
    return (struct.pack("<I", srid) + wkb).decode("latin-1")


def test_wkb_to_wkt_covers_every_geometry_kind() -> None:
    line = struct.pack("<BII4d", 1, 2, 2, 0, 0, 1.5, -2)
    polygon = struct.pack("<BIII8d", 1, 3, 1, 4, 0, 0, 1, 0, 1, 1, 0, 0)
    multipoint = struct.pack("<BII", 1, 4, 2) + _point(1, 2) + _point(3, 4, ">")
    collection = struct.pack("<BII", 1, 7, 2) + _point(1, 2) + line
    ewkb = struct.pack("<BII", 1, 0x20000001, 4326) + struct.pack("<dd", 5, 6)
    point_z = struct.pack("<BI3d", 1, 1001, 1, 2, 3)
    assert wkb_to_wkt(_point(116.397, 39.908)) == "POINT(116.397 39.908)"
    assert wkb_to_wkt(_point(1, -2, ">")) == "POINT(1 -2)"
    assert wkb_to_wkt(line) == "LINESTRING(0 0,1.5 -2)"
    assert wkb_to_wkt(polygon) == "POLYGON((0 0,1 0,1 1,0 0))"
    assert wkb_to_wkt(multipoint) == "MULTIPOINT((1 2),(3 4))"
    assert wkb_to_wkt(collection) == "GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1.5 -2))"
    assert wkb_to_wkt(ewkb) == "POINT(5 6)"
    assert wkb_to_wkt(point_z) == "POINT Z (1 2 3)"
    assert wkb_to_wkt(struct.pack("<BII", 1, 7, 0)) == "GEOMETRYCOLLECTION EMPTY"
    assert wkb_to_wkt(_point(float("nan"), float("nan"))) == "POINT EMPTY"
    assert wkb_to_wkt(struct.pack("<BI3d", 1, 1001, *[float("nan")] * 3)) == "POINT Z EMPTY"
    assert wkb_to_wkt(_point(1, 2)[:-1]) is None
    assert wkb_to_wkt(_point(1, 2) + b"\x00") is None
    assert wkb_to_wkt(b"\x07" + _point(1, 2)[1:]) is None
    assert wkb_to_wkt(b"") is None


def test_a_staged_geometry_reads_with_its_srid() -> None:
    assert geometry_text(_mysql_value(4326, _point(116.397, 39.908))) == "SRID=4326;POINT(116.397 39.908)"
    # SRID 0's bytes also start a big-endian WKB header: the whole value decides.
    assert geometry_text(_mysql_value(0, _point(1, 2))) == "SRID=0;POINT(1 2)"
    # DTS may send the WKB alone.
    assert geometry_text(_point(1, 2).decode("latin-1")) == "SRID=0;POINT(1 2)"
    assert geometry_text(_mysql_value(4326, _point(1, 2)[:-1])) is None
    assert geometry_text("POINT(1 2)") is None
    nested = struct.pack("<BII", 1, 7, 1) * 5000 + _point(1, 2)
    assert geometry_text(_mysql_value(0, nested)) is None
    assert geometry_text("日本") is None


def test_row_changes_give_geometry_columns_as_wkt(spark: SparkSession) -> None:
    place = _mysql_value(4326, _point(1, 2))
    moved = _mysql_value(4326, _point(3, 4.5))
    broken = _mysql_value(0, _point(1, 2)[:-1])
    rows = [
        # A note holding the same text as a geometry is not one: only typed columns change.
        (1, {"id": "1", "place": place, "note": place}, None, {"id": "int", "place": "point", "note": "varchar(9)"}),
        (2, {"id": "2", "place": moved}, {"id": "2", "place": place}, {"id": "int", "place": "GEOMETRY"}),
        (3, {"id": "3", "place": broken, "spot": None}, None, {"id": "int", "place": "geometry", "spot": "point"}),
        (4, {"id": "4", "place": place}, None, None),
    ]
    frame = spark.createDataFrame(
        rows,
        "row_index int, after_image map<string,string>, before_image map<string,string>, column_types map<string,string>",
    )
    decoded = {row.row_index: row for row in with_geometry_texts(frame).collect()}
    assert decoded[1].after_image == {"id": "1", "place": "SRID=4326;POINT(1 2)", "note": place}
    assert decoded[2].before_image == {"id": "2", "place": "SRID=4326;POINT(1 2)"}
    assert decoded[2].after_image == {"id": "2", "place": "SRID=4326;POINT(3 4.5)"}
    assert decoded[3].after_image == {"id": "3", "place": broken, "spot": None}
    assert decoded[4].after_image == {"id": "4", "place": place}
    assert with_geometry_texts(frame).columns == frame.columns


def test_only_messages_typing_a_geometry_column_need_decoding(spark: SparkSession) -> None:
    def messages(*column_types: dict[str, str] | None) -> DataFrame:
        return spark.createDataFrame([(types,) for types in column_types], "column_types map<string,string>")

    untyped = messages({"id": "int", "note": "varchar(9)"}, None)
    assert not types_geometries(untyped)
    assert not types_geometries(untyped.limit(0))
    assert types_geometries(untyped.union(messages({"id": "int", "place": "MultiPolygon"})))
    assert types_geometries(messages({"spot": "geography"}))


def _debezium_insert(value: dict[str, Any], logical_type: str) -> str:
    fields = [
        {"type": "int32", "optional": False, "field": "id"},
        {
            "type": "struct",
            "optional": True,
            "field": "place",
            "name": logical_type,
            "fields": [
                {"type": "bytes", "optional": False, "field": "wkb"},
                {"type": "int32", "optional": True, "field": "srid"},
            ],
        },
    ]
    row = {"type": "struct", "optional": True, "fields": fields}
    schema = {
        "type": "struct",
        "fields": [
            {**row, "field": "before"},
            {**row, "field": "after"},
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
        ],
    }
    source = {"db": "shop", "table": "sites", "ts_ms": 1700000000000, "file": "mysql-bin.000001", "pos": 4}
    payload = {"op": "c", "ts_ms": 1700000000100, "before": None, "after": {"id": 1, "place": value}, "source": source}
    return json.dumps({"schema": schema, "payload": payload})


def test_debezium_geometries_read_as_canal_s(spark: SparkSession, compiled: dict[str, str]) -> None:
    mysql = {"wkb": base64.b64encode(_point(116.397, 39.908)).decode(), "srid": 4326}
    ewkb = struct.pack("<BII", 1, 0x20000001, 3857) + struct.pack("<dd", 5, 6)
    lines = [
        _debezium_insert(mysql, "io.debezium.data.geometry.Geometry"),
        _debezium_insert({"wkb": base64.b64encode(ewkb).decode(), "srid": 3857}, "io.debezium.data.geometry.Geography"),
        _debezium_insert({"x": 1, "y": 2, "wkb": None, "srid": None}, "io.debezium.data.geometry.Point"),
    ]
    landed = landed_file_lines(
        spark,
        [("file:/landing/debezium_json/a.jsonl", n, line, datetime(2024, 1, 1)) for n, line in enumerate(lines, 1)],
    )
    relations = {
        "cdc_landing.debezium_json": landed,
        "cdc.debezium_connect_types": seed(spark, "debezium_connect_types"),
    }
    messages = staged(run_compiled(spark, compiled["stg_debezium_json__messages"], relations))
    assert [m["after_image"]["place"] for m in messages[:2]] == [
        _mysql_value(4326, _point(116.397, 39.908)),
        _mysql_value(3857, ewkb),
    ]
    # A Point without its WKB stays as sent.
    assert json.loads(messages[2]["after_image"]["place"]) == {"x": 1, "y": 2, "wkb": None, "srid": None}
    assert [m["column_types"]["place"] for m in messages] == ["geometry", "geography", "point"]
    images = spark.createDataFrame(
        [(m["after_image"], m["column_types"]) for m in messages],
        "after_image map<string,string>, column_types map<string,string>",
    ).withColumn("before_image", F.lit(None).cast("map<string,string>"))
    assert [row.after_image["place"] for row in with_geometry_texts(images).collect()][:2] == [
        "SRID=4326;POINT(116.397 39.908)",
        "SRID=3857;POINT(5 6)",
    ]
