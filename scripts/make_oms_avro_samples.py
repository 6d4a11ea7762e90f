"""Writes samples/landing/oms_avro/: records built to 004's schema, one per line in Avro's JSON
encoding (every ColumnValue branch, control records, DDL, another namespace, a shard set), hostile
records (each rejected with its reason), and the valid records as a binary container file.
Run from the repo root: .venv/bin/python scripts/make_oms_avro_samples.py"""

import json
import struct
from pathlib import Path

from cdc_lakehouse.avro import record_schema
from cdc_tools.avro_json import write_container
from cdc_tools.generator.formats.oms_avro import UNSET_FIELDS, image_bytes

NS = "com.oceanbase.oms.avro."


def d(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def rec(id_, op, **kw):
    r = {
        "id": id_,
        "version": {"int": 1},
        "operation": {NS + "Operation": op},
        "xid": {"string": "tx-42"},
        "txind": None,
        "position": {"string": "1700000000:7"},
        "timestamp": {"long": 1700000000},
        "source": {NS + "Source": {"sourceType": "OB_MYSQL", "version": "4.2.1"}},
        **UNSET_FIELDS,
    }
    r.update(kw)
    return r


point = struct.pack("<BIdd", 1, 1, 116.397, 39.908).decode("latin-1")
FIELDS = "id tiny big f dbl flag blob code name price born elapsed seen_at changed_at bits size tags place gone".split()


def cv(t, v):
    return {"type_info": t, "value": v}


AFTER = [
    cv("INTEGER", {"int": 1}),
    cv("INTEGER", {"int": -128}),
    cv("LONG", {"long": 9007199254740993}),
    cv("FLOAT", {"float": 5.18}),
    cv("DOUBLE", {"double": 0.1}),
    cv("BOOLEAN", {"boolean": True}),
    cv("BINARY", {"bytes": "\u0000\u00ffA"}),
    cv("STRING", {"string": "plain"}),
    cv("STRING", {NS + "StringObject": {"charsetName": "utf8mb4", "value": "Zoë 日本 😀"}}),
    cv("DECIMAL", {NS + "DecimalObject": {"precision": 12, "scale": 2, "value": "-10.5"}}),
    cv("DATE", {NS + "DateObject": {"year": 2024, "month": 2, "day": 29}}),
    cv("TIME", {NS + "TimeObject": {"negative": True, "hours": 838, "minutes": 59, "seconds": 58, "nanos": 500000000}}),
    cv(
        "DATETIME",
        {
            NS + "DateTimeObject": {
                "year": 2024,
                "month": 1,
                "day": 2,
                "hours": 3,
                "minutes": 4,
                "seconds": 5,
                "nanos": 123456000,
            }
        },
    ),
    cv(
        "TIMESTAMP",
        {NS + "TimestampObject": {"seconds": 1700000000, "nanos": 250000000, "timezone": {"string": "Asia/Shanghai"}}},
    ),
    cv("BIT", {NS + "BitObject": {"bit_length": 10, "value": "1000000001"}}),
    cv("ENUM", {NS + "EnumSetValue": {"value": "medium", "defines": {"array": ["small", "medium", "large"]}}}),
    cv("SET", {NS + "EnumSetValue": {"value": "a,c", "defines": {"array": ["a", "b", "c"]}}}),
    cv("GEOMETRY", {NS + "GeometryValue": {"srid": 4326, "wkb": point}}),
    cv("STRING", None),
]
fields = {"array": [{"name": n, "dataTypeNumber": 0} for n in FIELDS]}
tbl = dict(
    schemaName={"string": "shop"},
    tableName={"string": "everything"},
    fields=fields,
    pkIndexes={"array": [0]},
    ukIndexes={"array": [[7]]},
)
BEFORE = [dict(c) for c in AFTER]
BEFORE[7] = cv("STRING", {"string": "old"})
BEFORE[18] = cv("STRING", {"string": "was here"})
small_fields = {"array": [{"name": "id", "dataTypeNumber": 3}, {"name": "note", "dataTypeNumber": 15}]}
small = dict(
    schemaName={"string": "shop"}, tableName={"string": "notes"}, fields=small_fields, pkIndexes={"array": [0]}
)


def img(i, note):
    return [cv("INTEGER", {"int": i}), cv("STRING", None if note is None else {"string": note})]


good = [
    rec(1, "BEGIN", txind=None),
    rec(2, "INSERT", txind={NS + "TxindType": "B"}, afterImages={"array": AFTER}, **tbl),
    rec(
        3, "UPDATE", txind={NS + "TxindType": "M"}, beforeImages={"array": BEFORE}, afterImages={"array": AFTER}, **tbl
    ),
    rec(4, "DELETE", txind={NS + "TxindType": "E"}, beforeImages={"array": AFTER}, **tbl),
    rec(5, "COMMIT"),
    rec(
        6,
        "DDL",
        xid={"string": "tx-43"},
        schemaName={"string": "shop"},
        tableName={"string": "notes"},
        sql={"string": "ALTER TABLE `notes` ADD COLUMN `note` varchar(64) NULL"},
    ),
    rec(7, "HEARTBEAT", xid=None, position=None),
]
# Another producer's namespace: branches still decode by their last segment.
other = json.loads(
    d(rec(8, "INSERT", afterImages={"array": img(10, "other namespace")}, **small)).replace(
        "com.oceanbase.oms.avro.", "com.example.cdc.avro."
    )
)
good.append(other)
# A record split in two shards: images as Avro binary pieces.
before_b, after_b = image_bytes(img(11, "before " * 40)), image_bytes(img(11, "after " * 40))
for index in range(2):
    h = lambda b: b[index * (len(b) + 1) // 2 : (index + 1) * (len(b) + 1) // 2].decode("latin-1")
    good.append(
        rec(9, "UPDATE", total=2, index=index, beforeImageBytes=h(before_b), afterImageBytes=h(after_b), **small)
    )
with open("samples/landing/oms_avro/004_oms_records.jsonl", "w") as out:
    out.write("".join(d(r) + "\n" for r in good))


def bad_value(id_, value, t="STRING"):
    return rec(id_, "INSERT", afterImages={"array": [cv("INTEGER", {"int": id_}), cv(t, value)]}, **small)


hostile = [
    bad_value(101, {NS + "FancyObject": {"x": 1}}),
    bad_value(102, {NS + "StringObject": {"charsetName": "ascii", "value": "café"}}),
    bad_value(103, {NS + "StringObject": {"charsetName": "klingon", "value": "qapla'"}}),
    bad_value(104, {NS + "GeometryValue": {"srid": 4326, "wkb": point[:-3]}}, "GEOMETRY"),
    bad_value(105, {NS + "DecimalObject": {"precision": 5, "scale": 2, "value": "1.5e3"}}, "DECIMAL"),
    bad_value(
        106, {NS + "TimestampObject": {"seconds": 1, "nanos": 0, "timezone": {"string": "Mars/Olympus"}}}, "TIMESTAMP"
    ),
    rec(
        107,
        "UPDATE",
        total=3,
        index=0,
        beforeImageBytes=before_b[:10].decode("latin-1"),
        afterImageBytes=after_b[:10].decode("latin-1"),
        **small,
    ),
    rec(108, "UPSERT", afterImages={"array": img(108, "x")}, **small),
    rec(109, "INSERT", xid={"int": 5}, afterImages={"array": img(109, "x")}, **small),
    rec(110, "INSERT", afterImages={"array": img(110, "x")}, **{**small, "schemaName": None}),
    rec(111, "INSERT", afterImages={"array": img(111, "x")[:1]}, **small),
    rec(112, "INSERT", afterImages={"array": img(112, "x")}, **{**small, "pkIndexes": {"array": [5]}}),
]
lines = [d(r) for r in hostile] + ['{"id": 113, "operation": ', "", "[1, 2]"]
with open("samples/landing/oms_avro/hostile_and_edge_cases.jsonl", "w") as out:
    out.write("".join(line + "\n" for line in lines))


# The valid records again as a binary container file (other ids and tables, so the two files
# do not redeliver each other). Another producer's namespace is not this schema's: left out.
def binary_copy(r):
    r = json.loads(d(r))
    r["id"] += 1000
    if r["tableName"]:
        r["tableName"] = {"string": r["tableName"]["string"] + "_binary"}
    return d(r)


write_container(
    Path("samples/landing/oms_avro/004_oms_records_binary.avro"),
    record_schema("oms_avro"),
    [binary_copy(r) for r in good if r is not other],
)
print("ok")
