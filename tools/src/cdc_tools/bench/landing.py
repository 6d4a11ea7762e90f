"""The benchmark's landed data: one logical stream cut into three consecutive segments.

    small     the first N/5 messages                 (step 6's history)
    rest      the next messages, up to N in all      (small + rest = steps 2-5's history)
    increment the next N/100 messages                (steps 5 and 6 land it on either history)

A message is a landed line, counted across formats. Every format carries the same statements
(the generator encodes each statement in every format), so formats land in the proportions the
encoders give them: one line per statement in canal and CloudCanal, one per row in Debezium and
KafkaRiverCanal, and so on for formats added to the generator's FORMATS. A segment ends at the
first statement boundary where its lines reach its target, so counts overshoot by a few lines.

Segments are written under `<out>/<segment>/<format>/part-*.jsonl` by the generator's
RollingWriter; `link_segment` puts a segment's files into a landing root.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cdc_tools.generator.expected import expected_row_changes
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.stream import deliveries, logical_stream, producer_retried, restart_marks
from cdc_tools.generator.writer import DEFAULT_FILE_BYTES, RollingWriter

SEGMENTS = ("small", "rest", "increment")
HISTORY_DIVISOR = 5  # step 6's history is N / 5
INCREMENT_DIVISOR = 100  # steps 5 and 6 land N / 100 more


@dataclass
class FormatCount:
    messages: int = 0
    row_changes: int = 0  # as the facts count them: a redelivered statement's rows not again
    sent_row_changes: int = 0  # as a job that keeps every delivery writes them


@dataclass
class Segment:
    """One segment's landed lines and row changes, per format."""

    name: str
    formats: dict[str, FormatCount] = field(default_factory=dict)
    statements: int = 0

    @property
    def messages(self) -> int:
        return sum(count.messages for count in self.formats.values())

    @property
    def row_changes(self) -> int:
        return sum(count.row_changes for count in self.formats.values())


@dataclass
class Landing:
    """The written segments and the dbt vars every build needs."""

    out: Path
    segments: dict[str, Segment]
    primary_keys: dict[str, list[str]]


def segment_end(segment: str, messages: int, landed: int) -> int:
    """The line count, across formats and segments, at which `segment` ends, when `landed`
    lines were landed before it: the history is N lines in all, the increment N/100 more."""
    if messages < HISTORY_DIVISOR * INCREMENT_DIVISOR:
        raise ValueError(f"N must be at least {HISTORY_DIVISOR * INCREMENT_DIVISOR} messages")
    ends = {
        "small": messages // HISTORY_DIVISOR,
        "rest": messages,
        "increment": landed + messages // INCREMENT_DIVISOR,
    }
    return ends[segment]


def land(
    out: Path,
    messages: int,
    seed: int = 0,
    formats: Iterable[str] = tuple(FORMATS),
    max_file_bytes: int = DEFAULT_FILE_BYTES,
) -> Landing:
    """Writes the three segments of the stream `seed` under `out`."""
    encoders = [FORMATS[name] for name in formats]
    segments = {name: Segment(name, {e.name: FormatCount() for e in encoders}) for name in SEGMENTS}
    primary_keys: dict[str, list[str]] = {}
    names = iter(SEGMENTS)
    current = next(names)
    writers = _writers(out, current, encoders, max_file_bytes)
    landed = 0
    end = segment_end(current, messages, landed)
    try:
        for statement, restarted in restart_marks(deliveries(logical_stream(seed, sys.maxsize))):
            if restarted:
                for writer in writers.values():
                    writer.roll()
            redelivery = statement.delivery > 0
            if statement.table is not None:
                table = statement.table
                primary_keys[f"{table.database}.{table.name}"] = list(table.key)
            copies = 2 if producer_retried(statement) else 1  # a retry's copy right after each line
            sent_rows = len(expected_row_changes(statement))
            rows = 0 if redelivery else sent_rows
            segment = segments[current]
            segment.statements += 0 if redelivery else 1
            for encoder in encoders:
                lines = encoder.encode(statement)
                for line in lines:
                    writers[encoder.name].write(line, copies)
                count = segment.formats[encoder.name]
                count.messages += len(lines) * copies
                count.row_changes += rows
                count.sent_row_changes += sent_rows * copies
                landed += len(lines) * copies
            if landed >= end:
                _close(writers)
                current = next(names, "")
                if not current:
                    break
                end = segment_end(current, messages, landed)
                writers = _writers(out, current, encoders, max_file_bytes)
    finally:
        _close(writers)
    return Landing(out, segments, primary_keys)


def _writers(out: Path, segment: str, encoders: list, max_file_bytes: int) -> dict[str, RollingWriter]:
    return {e.name: RollingWriter(out / segment / e.name, max_file_bytes) for e in encoders}


def _close(writers: dict[str, RollingWriter]) -> None:
    for writer in writers.values():
        writer.close()


def link_segment(landing: Landing, segment: str, root: Path, copy: bool = False) -> list[Path]:
    """Puts a segment's files into `root/<format>/` as `<segment>-part-*.jsonl`: hard links
    (no copy of the data; a copy where the file system has none), or fresh copies when `copy`
    (new files get the landing time of now, as a newly landed file would)."""
    placed = []
    for source in sorted((landing.out / segment).glob("*/*")):
        target = root / source.parent.name / f"{segment}-{source.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if copy:
            shutil.copyfile(source, target)
        else:
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
        placed.append(target)
    return placed


def repeat_folder(source: Path, target: Path, copies: int) -> int:
    """Links every file of `source` into `target` `copies` times (copy-<i>-<name>); the
    hand-written job reads them as that many times the data. Returns the files placed."""
    target.mkdir(parents=True, exist_ok=True)
    placed = 0
    for copy_number in range(copies):
        for path in sorted(source.iterdir()):
            destination = target / f"copy-{copy_number:03d}-{path.name}"
            try:
                os.link(path, destination)
            except OSError:
                shutil.copyfile(path, destination)
            placed += 1
    return placed


def landing_bytes(root: Path) -> int:
    """The bytes of every file landed under `root`."""
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())
