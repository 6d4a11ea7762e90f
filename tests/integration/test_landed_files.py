"""The files real pipelines land, read or reported, never failing a build.

One landing holds what Kafka Connect and Hadoop sinks leave in a format's folder: nested
`topics/<topic>/partition=N/` folders, a `key=value` folder beside plain files, gzip files (one
whole, one cut short), a stale Hadoop checksum sidecar, a name with colons, a UTF-8 byte order
mark, an empty file (Spark lists no zero-byte file: it holds nothing to account for), and in an
Avro folder a file that is no landing file. A `dbt build` of the facts over it succeeds;
`fct_landed_files` gives each file its outcome, and the readable files' changes reach the facts
with the values their lines hold. Then a line is appended to a loaded file, and the
next build reports it as changed after its load, through the landing tables the first build
defined; its data tests pass reading every row, the appended file's too (the first build, of
the facts only, left no build whose data tests all passed). A run over another landing root
defines them anew.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from cdc_tools.registry import reading_only
from support.dbt_harness import DATA_BUILD, FACTS_BUILD, REPO, Build, file_name, profiles_dir
from support.dbt_worker import DbtWorker

LANDED_EPOCH = 1_767_225_600  # the files' modification time: 2026-01-01T00:00:00Z


def _canal_insert(row_id: int) -> bytes:
    """A canal FlatMessage INSERT of one row of shop.items whose name says its id."""
    message = {
        "data": [{"id": str(row_id), "name": f"item {row_id}"}],
        "database": "shop",
        "es": 1_700_000_000_000 + row_id,
        "id": row_id,
        "isDdl": False,
        "mysqlType": {"id": "int", "name": "varchar(20)"},
        "old": None,
        "pkNames": ["id"],
        "sql": "",
        "sqlType": {"id": 4, "name": 12},
        "table": "items",
        "ts": 1_700_000_000_500 + row_id,
        "type": "INSERT",
    }
    return json.dumps(message).encode() + b"\n"


def _stale_checksum(data: bytes) -> bytes:
    """A Hadoop `.crc` sidecar (magic, bytes per checksum, one CRC-32 per chunk) of `data`."""
    return b"crc\x00" + struct.pack(">i", 512) + struct.pack(">I", zlib.crc32(data))


# Canal files by path below the format's folder, and the row ids their lines insert.
CANAL_FILES: dict[str, tuple[bytes, tuple[int, ...]]] = {
    "root.jsonl": (_canal_insert(1) + _canal_insert(2), (1, 2)),
    "topics/cdc.shop/partition=0/cdc.shop+0+0000000000.jsonl": (_canal_insert(3), (3,)),
    "topics/cdc.shop/partition=1/cdc.shop+1+0000000000.jsonl.gz": (gzip.compress(_canal_insert(4)), (4,)),
    "value=x/plain.jsonl": (_canal_insert(5), (5,)),
    "2026-01-01T00:00:00.jsonl": (_canal_insert(6), (6,)),
    "with-bom.jsonl": (b"\xef\xbb\xbf" + _canal_insert(7), (7,)),
    "checksummed.jsonl": (_canal_insert(8), (8,)),
    "truncated.jsonl.gz": (gzip.compress(_canal_insert(9) * 50)[:40], ()),
    "empty.jsonl": (b"", ()),
}
EXPECTED = {
    # file name -> (read_as, outcome, landed_lines)
    "root.jsonl": ("lines", "loaded", 2),
    "cdc.shop+0+0000000000.jsonl": ("lines", "loaded", 1),
    "cdc.shop+1+0000000000.jsonl.gz": ("lines", "loaded", 1),
    "plain.jsonl": ("lines", "loaded", 1),
    "2026-01-01T00:00:00.jsonl": ("lines", "loaded", 1),
    "with-bom.jsonl": ("lines", "loaded", 1),
    "checksummed.jsonl": ("lines", "loaded", 1),
    "truncated.jsonl.gz": ("lines", "not_loaded", None),
    "README.txt": (None, "not_a_landing_file", None),
}


def _land(root: Path) -> None:
    canal = root / "canal_json"
    for relative, (data, _) in CANAL_FILES.items():
        path = canal / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    # Written for other content than the file now holds, as a rewrite by a tool unaware of it leaves it.
    (canal / ".checksummed.jsonl.crc").write_bytes(_stale_checksum(b"other content\n"))
    dts = root / "dts_avro"
    dts.mkdir()
    (dts / "README.txt").write_text("landed by the sink's operators, not by the sink\n")
    for path in root.rglob("*"):
        os.utime(path, (LANDED_EPOCH, LANDED_EPOCH))


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> dict[str, Build]:
    root = tmp_path_factory.mktemp("landed_files")
    landing = root / "landing"
    _land(landing)
    profiles = profiles_dir(root)
    moved = root / "moved"  # another landing root, of one canal file
    (moved / "canal_json").mkdir(parents=True)
    (moved / "canal_json" / "moved.jsonl").write_bytes(_canal_insert(11) + _canal_insert(12))
    read = reading_only(REPO, "canal_json", "dts_avro")  # the landing's formats
    # The builds on one schema, the second incremental.
    first = Build(
        "landed files",
        root / "first",
        FACTS_BUILD,
        landing,
        dbt_vars=read,
        schema="landed_files",
        worker=shared_worker,
    )
    after_append = Build(
        "landed files after an append",
        root / "second",
        DATA_BUILD,
        landing,
        dbt_vars=read,
        schema="landed_files",
        worker=shared_worker,
    )
    landing_moved = Build(
        "landing tables over another root",
        root / "moved_run",
        ["run-operation", "create_landing_tables"],
        moved,
        schema="landed_files",
        worker=shared_worker,
    )
    first.start(profiles)
    first.wait()
    first.marts()
    appended = landing / "canal_json" / "root.jsonl"
    with appended.open("ab") as out:
        out.write(_canal_insert(10))
    os.utime(appended, (LANDED_EPOCH + 60, LANDED_EPOCH + 60))
    after_append.start(profiles)
    after_append.wait()
    after_append.marts()
    landing_moved.start(profiles)
    landing_moved.wait()
    return {"first": first, "after_append": after_append, "landing_moved": landing_moved}


def _files(build: Build) -> dict[str, dict[str, Any]]:
    return {file_name(row["file_path"]): row for row in build.marts()["fct_landed_files"]}


def test_every_landed_file_has_its_outcome(builds: dict[str, Build]) -> None:
    files = _files(builds["first"])
    assert {name: (row["read_as"], row["outcome"], row["landed_lines"]) for name, row in files.items()} == EXPECTED
    assert files["cdc.shop+0+0000000000.jsonl"]["file_path"].endswith(
        "/canal_json/topics/cdc.shop/partition=0/cdc.shop+0+0000000000.jsonl"
    )
    assert "empty.jsonl" not in files
    assert {row["source_format"] for name, row in files.items() if name != "README.txt"} == {"canal_json"}


def test_readable_files_give_their_rows_verbatim(builds: dict[str, Build]) -> None:
    changes = builds["first"].marts()["fct_row_changes"]
    inserted = {
        (file_name(change["file_path"]), change["after_image"]["id"], change["after_image"]["name"])
        for change in changes
    }
    expected = {
        (Path(relative).name, str(row_id), f"item {row_id}")
        for relative, (_, row_ids) in CANAL_FILES.items()
        for row_id in row_ids
    }
    assert inserted == expected
    assert len(changes) == len(expected) == 8


def test_nothing_is_rejected_and_reconciliation_holds(builds: dict[str, Build]) -> None:
    marts = builds["first"].marts()
    assert marts["fct_rejected_messages"] == []
    reconciled = {file_name(row["file_path"]): row for row in marts["fct_message_reconciliation"]}
    assert {name: row["row_change_messages"] for name, row in reconciled.items()} == {
        name: lines for name, (_, outcome, lines) in EXPECTED.items() if outcome == "loaded"
    }


def test_files_not_loaded_warn_and_fail_nothing(builds: dict[str, Build]) -> None:
    results = builds["first"].run_results()
    assert results["test.cdc_lakehouse.warn_landed_files_not_loaded"] == "warn"
    assert {status for status in results.values()} <= {"success", "pass", "warn"}


def test_a_file_appended_after_its_load_is_reported(builds: dict[str, Build]) -> None:
    files = _files(builds["after_append"])
    assert (files["root.jsonl"]["outcome"], files["root.jsonl"]["landed_lines"]) == ("changed_after_load", 2)
    assert {name: row["outcome"] for name, row in files.items() if name != "root.jsonl"} == {
        name: outcome for name, (_, outcome, _) in EXPECTED.items() if name != "root.jsonl"
    }
    # Its appended line is not loaded a second time, nor half: the facts keep the file as loaded.
    ids = sorted(int(change["after_image"]["id"]) for change in builds["after_append"].marts()["fct_row_changes"])
    assert ids == [1, 2, 3, 4, 5, 6, 7, 8]


def test_landing_tables_are_defined_again_only_when_their_definitions_change(builds: dict[str, Build]) -> None:
    """The first build defines the landing tables; the second finds them as defined and reads
    the appended line through them (above); another landing root defines them anew, over it."""
    first, after_append, moved = (builds[name] for name in ("first", "after_append", "landing_moved"))
    assert f"Landing tables defined over {first.landing_root}\n" in first.output_file.read_text()
    assert f"Landing tables already defined over {first.landing_root}\n" in after_append.output_file.read_text()
    assert f"Landing tables defined over {moved.landing_root}\n" in moved.output_file.read_text()
    lines = moved.tables(("canal_json",), suffix="_landing")["canal_json"]["rows"]  # its landed_lines
    assert sorted((file_name(row["file_path"]), row["line_number"]) for row in lines) == [
        ("moved.jsonl", 1),
        ("moved.jsonl", 2),
    ]
