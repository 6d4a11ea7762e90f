"""The pieces of the Kafka landing that need no broker: which topics a format reads and what
its records table is (cdc_lakehouse.kafka_landing), a landed file's lines as records and a
broker's storage formatted (cdc_tools.kafka)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cdc_lakehouse.kafka_landing import plan
from cdc_tools.kafka import broker_settings, format_storage, landed_lines
from cdc_tools.producers.postgres import free_port


def test_a_format_reads_the_topic_named_as_it_unless_told_otherwise() -> None:
    """And an Avro format's (one landing `containers`) values are decoded as they land."""
    registry = {"canal_json": {"ddl": True}, "debezium_avro": {"ddl": True, "containers": "*.avro"}}
    assert plan("cdc_landing", registry, {"debezium_avro": r"^dbserver1\..*"}) == {
        "canal_json": {"topics": "^canal_json$", "records": "cdc_landing.canal_json__records", "avro": False},
        "debezium_avro": {"topics": r"^dbserver1\..*", "records": "cdc_landing.debezium_avro__records", "avro": True},
    }


def test_a_default_pattern_does_not_reach_a_topic_whose_name_holds_the_format() -> None:
    # Spark's subscribePattern finds a match anywhere in a topic's name.
    pattern = plan("cdc_landing", {"canal_json": {}}, {})["canal_json"]["topics"]
    assert re.search(pattern, "canal_json") and not re.search(pattern, "cloudcanal_json")


@pytest.mark.parametrize(
    ("content", "lines"),
    [
        (b"", []),
        (b"a\n", [b"a"]),
        (b"a", [b"a"]),
        (b"a\r\n\nb\r\n", [b"a", b"", b"b"]),
        (b"\n", [b""]),
    ],
)
def test_a_landed_file_is_a_record_a_line(tmp_path: Path, content: bytes, lines: list[bytes]) -> None:
    path = tmp_path / "part.jsonl"
    path.write_bytes(content)
    assert landed_lines(path) == lines


def test_storage_is_formatted_for_a_cluster_id_that_begins_with_a_dash(tmp_path: Path) -> None:
    """A random cluster id begins with '-' one time in 64: the Kafka tests' broker once failed
    to start on one."""
    settings = tmp_path / "server.properties"
    settings.write_text(broker_settings(free_port(), free_port(), tmp_path))
    format_storage(settings, "-FebPkBKQDKUBvqqd-OLoQ")
    assert "cluster.id=-FebPkBKQDKUBvqqd-OLoQ\n" in (tmp_path / "logs" / "meta.properties").read_text()
