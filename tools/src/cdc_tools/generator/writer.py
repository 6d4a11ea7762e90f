"""Streams a logical stream to landed files and expected results, in constant memory.

Layout under `out`:
    <format>/part-00000.jsonl, part-00001.jsonl, ...       the landed lines, rolling files
    <format>/part-00000.avro, ...     an Avro format's records as binary object container files
                                      instead, with `avro_encoding="binary"`
    _expected/<format>/row_changes.jsonl, schema_changes.jsonl
    _expected/dbt_vars.json    {"cdc_primary_keys": {"db.table": [key columns]}} for every table
                               of the stream, for a build that should not take keys from DDL
    _expected/redelivered_changes.json   {format: changes its restarts and retries sent again}

The statements are landed as their producers send them (`stream.deliveries`): a restart sends
the last few again in a new envelope, and each format starts a new file for them; a producer
retry (`stream.producer_retried`) writes a statement's every line twice, the copy right after it
in the same file. The expected results hold each change once.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

import fastavro
from fastavro.write import Writer as FastavroWriter
from tqdm import tqdm

from cdc_tools.generator.expected import expected_row_changes, expected_schema_changes
from cdc_tools.generator.formats import FORMATS, AvroRecord, Encoder
from cdc_tools.generator.stream import (
    REDELIVERED_STATEMENTS,
    deliveries,
    logical_stream,
    producer_retried,
    restart_marks,
)

DEFAULT_FILE_BYTES = 64 * 1024 * 1024
AvroEncoding = Literal["json", "binary"]
EXPECTED_FOLDER = "_expected"
DBT_VARS_FILE = "dbt_vars.json"
REDELIVERED_CHANGES_FILE = "redelivered_changes.json"


class RollingWriter:
    """Writes lines to part-00000.jsonl, part-00001.jsonl, ... in `folder`, starting a new
    file before a line (with its `copies`) would take the current one past `max_bytes` (a
    longer one gets a file of its own)."""

    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.files: list[Path] = []
        self._out: BinaryIO | None = None
        self._size = 0
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, line: str, copies: int = 1) -> None:
        data = (line.encode("utf-8") + b"\n") * copies
        if self._out is None or (self._size and self._size + len(data) > self.max_bytes):
            self.roll()
        assert self._out is not None
        self._out.write(data)
        self._size += len(data)

    def roll(self) -> None:
        self.close()
        path = self.folder / f"part-{len(self.files):05d}.jsonl"
        self.files.append(path)
        self._out = path.open("wb", buffering=1 << 20)
        self._size = 0

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


class ContainerWriter:
    """Writes an Avro format's lines (their text form) as the records they stand for
    (`avro_record`) in binary object container files part-00000.avro, part-00001.avro, ... in
    `folder` (one encoder serves both encodings). Files roll where RollingWriter's would,
    counting the lines' bytes (the binary form is smaller), so part-0000N.avro holds the records
    of part-0000N.jsonl; where the records of a part have several schemas (Kafka Connect's, a
    schema per table), as a sink does it starts a file for each other one, part-0000N-1.avro, ..."""

    def __init__(self, folder: Path, max_bytes: int, avro_record: AvroRecord) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.avro_record = avro_record
        self.files: list[Path] = []
        self._writers: dict[str, FastavroWriter] = {}
        self._outs: list[BinaryIO] = []
        self._schema: Any = None  # the last written, which an empty part's container takes
        self._parts: list[Path] = []
        self._size = 0
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, line: str, copies: int = 1) -> None:
        size = (len(line.encode("utf-8")) + 1) * copies
        if not self.files or (self._size and self._size + size > self.max_bytes):
            self.roll()
        schema, datum = self.avro_record(line)
        writer = self._writer(schema)
        for _ in range(copies):
            writer.write(datum)
        self._size += size

    def _writer(self, schema: Any) -> FastavroWriter:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._writers:
            if self._writers:
                self.files.append(self.folder / f"{self._parts[-1].stem}-{len(self._writers)}.avro")
            out = self.files[-1].open("wb")
            self._outs.append(out)
            self._writers[key] = FastavroWriter(out, fastavro.parse_schema(schema))
            self._schema = schema
        return self._writers[key]

    def roll(self) -> None:
        self.close()
        self._parts.append(self.folder / f"part-{len(self._parts):05d}.avro")
        self.files.append(self._parts[-1])
        self._size = 0

    def close(self) -> None:
        if self.files and not self._writers and self._schema is not None:
            self._writer(self._schema)  # a part without records is an empty container, not an empty file
        for writer in self._writers.values():
            writer.flush()
        for out in self._outs:
            out.close()
        self._writers, self._outs = {}, []


@dataclass
class FormatCounts:
    lines: int = 0
    row_changes: int = 0
    schema_changes: int = 0
    redelivered_changes: int = 0
    # (the first file holding an original, the last file holding a copy) for each restart
    restarts: list[tuple[int, int]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def _jsonl(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def generate(
    out: Path,
    statements: int,
    seed: int = 0,
    formats: Iterable[str] = tuple(FORMATS),
    max_file_bytes: int = DEFAULT_FILE_BYTES,
    progress: bool = False,
    avro_encoding: AvroEncoding = "json",
) -> dict[str, FormatCounts]:
    """Writes `statements` statements of the stream `seed` in each of `formats` under `out`;
    the Avro formats as JSON-encoded lines, or as binary container files."""
    encoders: list[Encoder] = [FORMATS[name] for name in formats]
    writers: dict[str, RollingWriter | ContainerWriter] = {
        e.name: ContainerWriter(out / e.name, max_file_bytes, e.avro_record)
        if e.avro_record is not None and avro_encoding == "binary"
        else RollingWriter(out / e.name, max_file_bytes)
        for e in encoders
    }
    counts = {e.name: FormatCounts() for e in encoders}
    (out / EXPECTED_FOLDER).mkdir(parents=True, exist_ok=True)
    expected: dict[str, tuple[BinaryIO, BinaryIO]] = {}
    for encoder in encoders:
        folder = out / EXPECTED_FOLDER / encoder.name
        folder.mkdir(parents=True, exist_ok=True)
        expected[encoder.name] = (
            (folder / "row_changes.jsonl").open("wb", buffering=1 << 20),
            (folder / "schema_changes.jsonl").open("wb", buffering=1 << 20),
        )
    primary_keys: dict[str, list[str]] = {}
    # Per format, the file each of the last few statements went to: a restart re-sends them.
    placed = {e.name: deque(maxlen=REDELIVERED_STATEMENTS) for e in encoders}
    bar = tqdm(total=statements, unit="stmt", disable=not progress, desc="cdc-generate", mininterval=0.5)
    try:
        for statement, restarted in restart_marks(deliveries(logical_stream(seed, statements))):
            if restarted:
                for name, writer in writers.items():
                    writer.roll()
                    counts[name].restarts.append((min(placed[name]), len(writer.files) - 1))
            redelivery = statement.delivery > 0
            copies = 2 if producer_retried(statement) else 1
            table = statement.table
            if table is not None:
                primary_keys[f"{table.database}.{table.name}"] = list(table.key)
            row_changes = expected_row_changes(statement)
            row_lines = [_jsonl(row) for row in row_changes]
            schema_changes = expected_schema_changes(statement)
            for encoder in encoders:
                writer, count = writers[encoder.name], counts[encoder.name]
                lines = encoder.encode(statement)
                first_file = None  # a statement's lines may span files: a restart re-sends from its first
                for line in lines:
                    writer.write(line, copies)  # one file holds a line and its retry copy
                    first_file = len(writer.files) - 1 if first_file is None else first_file
                count.lines += len(lines) * copies
                file = len(writer.files) - 1
                sent_schema_changes = encoder.sent_schema_changes(schema_changes)
                count.redelivered_changes += (copies - 1) * (len(row_changes) + len(sent_schema_changes))
                if redelivery:
                    count.restarts[-1] = (count.restarts[-1][0], file)
                    count.redelivered_changes += len(row_changes) + len(sent_schema_changes)
                    continue
                placed[encoder.name].append(file if first_file is None else first_file)
                encoder_rows = row_lines if encoder.keeps_facts else [_jsonl(encoder.expected(r)) for r in row_changes]
                rows_out, schema_out = expected[encoder.name]
                rows_out.writelines(encoder_rows)
                count.row_changes += len(row_changes)
                schema_out.writelines(_jsonl(encoder.expected(change)) for change in sent_schema_changes)
                count.schema_changes += len(sent_schema_changes)
            bar.update(0 if redelivery else 1)
    finally:
        bar.close()
        for writer in writers.values():
            writer.close()
        for rows_out, schema_out in expected.values():
            rows_out.close()
            schema_out.close()
    dbt_vars = {"cdc_primary_keys": primary_keys}
    (out / EXPECTED_FOLDER / DBT_VARS_FILE).write_text(json.dumps(dbt_vars, indent=2) + "\n")
    redelivered = {name: count.redelivered_changes for name, count in counts.items()}
    (out / EXPECTED_FOLDER / REDELIVERED_CHANGES_FILE).write_text(json.dumps(redelivered, indent=2) + "\n")
    for name, writer in writers.items():
        counts[name].files = list(writer.files)
    return counts
