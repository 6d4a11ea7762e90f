"""cdc_lakehouse.avro.json_encoding against fastavro's json_writer, the encoding it replaces: the
same text for every record of the generated stream read from binary containers, and for values
at the edges of the unions' branches."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import fastavro
import pytest

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.json_encoding import json_encoder
from cdc_tools.generator.writer import generate

FORMATS = ("dts_avro", "oms_avro")
REPO = Path(__file__).resolve().parents[2]


def _json_writer_text(parsed: Any, record: Any) -> str:
    out = io.StringIO()
    fastavro.json_writer(out, parsed, [record])
    return out.getvalue()


def _records(containers: list[Path]) -> list[Any]:
    """The records of container files as the project reads them, up to any damage."""
    records: list[Any] = []
    for path in containers:
        try:
            records.extend(fastavro.reader(io.BytesIO(path.read_bytes()), return_record_name=True))
        except Exception:  # a truncated sample: the records before the damage are read
            continue
    return records


def _assert_encoded_as_json_writer_does(source_format: str, records: list[Any]) -> None:
    parsed = fastavro.parse_schema(record_schema(source_format))
    encode = json_encoder(parsed)
    assert [encode(record) for record in records] == [_json_writer_text(parsed, record) for record in records]


@pytest.mark.parametrize("source_format", FORMATS)
def test_every_generated_record_is_encoded_as_json_writer_encodes_it(source_format: str, tmp_path: Path) -> None:
    counts = generate(tmp_path, 200, 11, [source_format], max_file_bytes=64 * 1024, avro_encoding="binary")
    records = _records(counts[source_format].files)
    assert len(records) == counts[source_format].lines > 200
    _assert_encoded_as_json_writer_does(source_format, records)


@pytest.mark.parametrize("source_format", FORMATS)
def test_every_sample_record_is_encoded_as_json_writer_encodes_it(source_format: str) -> None:
    records = _records(sorted((REPO / "samples" / "landing" / source_format).glob("*.avro")))
    assert records
    _assert_encoded_as_json_writer_does(source_format, records)


EDGE_VALUES = [
    None,
    True,
    (1 << 31) - 1,  # the last int
    1 << 31,  # a long
    -(1 << 31) - 1,
    0.5,  # a float is written as the union's double
    b"\x00\xff",
    "Zoë \n 😀",
    ("com.oceanbase.oms.avro.DecimalObject", {"precision": 5, "scale": 2, "value": "1.50"}),
]


def test_union_branches_are_picked_as_json_writer_picks_them() -> None:
    parsed = fastavro.parse_schema(record_schema("oms_avro"))
    record = next(
        fastavro.reader(
            io.BytesIO(_container(parsed, [{"type_info": "STRING", "value": value} for value in EDGE_VALUES])),
            return_record_name=True,
        )
    )
    assert json_encoder(parsed)(record) == _json_writer_text(parsed, record)
    values = [image["value"] for image in record["afterImages"]]
    assert values[:3] == EDGE_VALUES[:3] and values[6] == EDGE_VALUES[6]


def _container(parsed: Any, images: list[dict[str, Any]]) -> bytes:
    """A container of one OMS INSERT whose after image holds `images`."""
    record = {field["name"]: None for field in parsed["fields"]}
    record.update(id=1, version=1, afterImages=images, total=0, index=0, beforeImageBytes=b"", afterImageBytes=b"")
    out = io.BytesIO()
    fastavro.writer(out, parsed, [record])
    return out.getvalue()


def test_a_logical_type_is_refused() -> None:
    with pytest.raises(ValueError, match="logical type date"):
        json_encoder(fastavro.parse_schema({"type": "int", "logicalType": "date"}))
