"""The hostile-input mutations themselves (tests/support/hostile_inputs.py), without dbt: a
plan is reproducible from its seed, each hostile line is what its mutation class says, and a
damaged container file reads to its damage and no further. The build over them is
tests/integration/test_hostile_input.py."""

from __future__ import annotations

import copy
import io
import json
import zlib
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import fastavro
import pytest
from hypothesis import strategies as st

from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.mutation_rules import FormatRules, get
from cdc_tools.generator.stream import logical_stream
from support.hostile_inputs import (
    COMPRESSED,
    EPOCH,
    FORMAT_RULES,
    SURROGATE_PAIR,
    VALUE_LIMIT,
    Mutant,
    Source,
    container_mutants,
    draw_examples,
    folder_too_long,
    is_plausible,
    is_utf8,
    messages_of,
    mutable_sources,
    names_of,
    partition_folder,
    plan,
    read_time,
)

SEED = 20261123  # the hostile-input build's seed: the plans checked here are the ones it lands
FORMAT_NAMES = tuple(FORMAT_RULES)


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_mutation_plan_is_reproducible_from_its_seed(name: str) -> None:
    rules = FORMAT_RULES[name]
    sources = mutable_sources(
        rules, [(s.seq, line) for s in logical_stream(SEED, 10) for line in FORMATS[name].encode(s)]
    )
    first = [m.line for m in plan(rules, sources, sources[:3], SEED)]
    assert first == [m.line for m in plan(rules, sources, sources[:3], SEED)]
    assert first != [m.line for m in plan(rules, sources, sources[:3], SEED + 1)]


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_hostile_lines_are_what_their_class_says(name: str) -> None:
    """Truncated, run-together, NaN and too-deep lines are not JSON; duplicate keys repeat a key; a wrong type
    is not a type the field allows; blank lines are blank; the other classes' lines hold what
    they are named after, and the classes of two outcomes give both."""
    rules = FORMAT_RULES[name]
    sources = mutable_sources(
        rules, [(s.seq, line) for s in logical_stream(SEED, 10) for line in FORMATS[name].encode(s)]
    )
    outcomes: dict[str, set[str]] = defaultdict(set)
    for mutant in plan(rules, sources, sources[:3], SEED):
        ((outcome,),) = (mutant.expected[0],) if 0 in mutant.expected else ({("batch", None)},)
        outcomes[mutant.mutation].add(outcome[0])
        if mutant.mutation in NEW_CLASSES:
            NEW_CLASSES[mutant.mutation](rules, mutant, sources)
        elif mutant.mutation in ("truncated", "two_values", "non_numeric_number") or (
            mutant.mutation == "deep_nesting" and mutant.expected[0] == {("rejected", "malformed_json")}
        ):
            with pytest.raises((ValueError, RecursionError)):
                json.loads(mutant.line, parse_constant=_reject_constant)
        elif mutant.mutation == "duplicate_key":
            assert _repeats_a_key(mutant.line)
        elif mutant.mutation == "blank_line":
            assert mutant.line.strip() == b""
        elif mutant.mutation == "invalid_utf8":
            assert not is_utf8(mutant.line)
        else:
            json.loads(mutant.line)
    for mutation in ("lone_surrogate", "long_names"):
        if mutation in rules.mutations:
            assert {"rejected", "row_change"} <= outcomes[mutation], (mutation, outcomes[mutation])


def _strings(value: Any) -> Iterator[str]:
    """Every string of a parsed JSON value, its keys too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _has_lone_surrogate(text: str) -> bool:
    return any("\ud800" <= character <= "\udfff" for character in text)


def _extreme_number(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """The number's text is in the line as a JSON number, exactly."""
    (token,) = mutant.image.values()
    assert token in _strings(json.loads(mutant.line, parse_float=str, parse_int=str))
    assert b'"' + token.encode() + b'"' not in mutant.line


def _lone_surrogate(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """Python's JSON reads the escape as half a pair (a lone surrogate), or as the pair's character."""
    strings = list(_strings(json.loads(mutant.line)))
    if mutant.expected == {0: frozenset({("rejected", "invalid_unicode_escape")})}:
        assert any(_has_lone_surrogate(text) for text in strings)
    else:
        assert not any(_has_lone_surrogate(text) for text in strings)
        assert any(SURROGATE_PAIR[1] in text for text in strings)
        assert SURROGATE_PAIR[0].encode() in mutant.line


def _empty_column_name(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    json.loads(mutant.line)
    named = f'{json.dumps(rules.column_name_key)}:""' if rules.column_name_key else '"":"x"'
    assert named.encode() in mutant.line


def _leading_whitespace(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """Blanks, then a valid line's messages (a batch's with a field no format reads)."""
    assert mutant.line[:1] in (b" ", b"\t") and mutant.line.strip(b" \t")[:1] in (b"{", b"[")
    messages = [{k: v for k, v in m.items() if k != "padding"} for m in messages_of(mutant.line.decode())]
    assert messages in [messages_of(source.line) for source in sources]
    assert set(mutant.expected) == set(range(len(messages)))


def _implausible_time(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """Its event time reads (as the staging reads an epoch's unit, by magnitude) as a known
    time outside [1990, 2200)."""
    assert rules.event_time is not None
    (message,) = messages_of(mutant.line.decode())
    moment = read_time(get(rules.root(message), rules.event_time.path))
    assert moment > EPOCH and not is_plausible(moment), moment


def _null_key_value(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """The key column is NULL in its images, or not there: nulling it again changes nothing."""
    assert rules.null_column is not None
    (message,) = messages_of(mutant.line.decode())
    (key,) = mutant.image
    again = copy.deepcopy(message)
    rules.null_column(again, key, False)
    assert again == message and message not in [s.message for s in sources]


def _value_too_large(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    assert max(map(len, _strings(json.loads(mutant.line)))) > VALUE_LIMIT


def _long_names(rules: FormatRules, mutant: Mutant, sources: list[Source]) -> None:
    """Rejected exactly when a partition folder of its names is too long."""
    (message,) = messages_of(mutant.line.decode())
    database, table = names_of(rules, message)
    assert database is not None
    too_long = folder_too_long("database_name", database) or (
        table is not None and folder_too_long("table_name", table)
    )
    assert (mutant.expected == {0: frozenset({("rejected", "name_too_long")})}) == too_long


NEW_CLASSES = {
    "extreme_number": _extreme_number,
    "lone_surrogate": _lone_surrogate,
    "empty_column_name": _empty_column_name,
    "leading_whitespace": _leading_whitespace,
    "implausible_time": _implausible_time,
    "null_key_value": _null_key_value,
    "value_too_large": _value_too_large,
    "long_names": _long_names,
}


def test_partition_folders_escape_as_hive_does_and_count_bytes() -> None:
    assert partition_folder("table_name", "a/b%é\n") == "table_name=a%2Fb%25é%0A"
    assert not folder_too_long("table_name", "x" * 244)
    assert folder_too_long("table_name", "x" * 245)
    assert folder_too_long("table_name", "é" * 123)  # two bytes each
    assert folder_too_long("database_name", "/" * 81)  # three bytes each


def test_epochs_are_read_by_magnitude() -> None:
    """Seconds below 1e11, then milliseconds, microseconds, nanoseconds; a year-9999 time in
    seconds reads as milliseconds of 1978, and milliseconds of early 1970 as seconds."""
    moment = datetime(2024, 1, 1, tzinfo=UTC)
    for scale in (1, 10**3, 10**6, 10**9):
        assert read_time(int(moment.timestamp()) * scale) == moment
    assert read_time(int(datetime(9999, 12, 31, tzinfo=UTC).timestamp())).year == 1978
    assert is_plausible(read_time(int(datetime(1970, 2, 1, tzinfo=UTC).timestamp()) * 1000))
    assert read_time("2024-01-01 00:00:00.000000") == read_time("2024-01-01T00:00:00.000000Z") == moment


def _reject_constant(token: str) -> Any:
    raise ValueError(token)


def _repeats_a_key(line: bytes) -> bool:
    repeated: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        repeated.append(len({key for key, _ in items}) != len(items))
        return dict(items)

    json.loads(line, object_pairs_hook=pairs)
    return any(repeated)


def test_draw_examples_is_deterministic() -> None:
    strategy = st.lists(st.text(max_size=5), max_size=4)
    assert draw_examples(strategy, 20, SEED) == draw_examples(strategy, 20, SEED)


@pytest.mark.parametrize("name", [name for name in FORMAT_NAMES if FORMAT_RULES[name].avro_schema])
def test_container_files_read_to_their_damage_and_no_further(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """fastavro reads each damaged container's valid records, then fails on the damaged one; a
    compressed container's records all; an OMS record with bytes that are not UTF-8 fails
    fastavro's strict decoding (the staging reads it with U+FFFD), the bad bytes in its place."""
    # Snappy's literals as Avro's snappy codec holds them (with no Snappy library here).
    monkeypatch.setitem(fastavro.read.BLOCK_READERS, "snappy", _read_snappy_literals)
    rules = FORMAT_RULES[name]
    encoded = [(s.seq, line) for s in logical_stream(SEED, 10) for line in FORMATS[name].encode(s)]
    groups = [[Source(seq, line, json.loads(line))] for seq, line in encoded[: 2 * len(rules.container_mutations)]]
    containers = container_mutants(rules, mutable_sources(rules, encoded), groups, SEED)
    assert sorted({c.mutation for c in containers}) == sorted(rules.container_mutations)
    for container, group in zip(containers, groups, strict=True):
        read: list[Any] = []
        if container.mutation in COMPRESSED:
            read.extend(fastavro.reader(io.BytesIO(container.data)))
            assert read == list(fastavro.json_reader(io.StringIO(group[0].line), rules.avro_schema))
            assert container.records == (group[0].seq,)
            continue
        with pytest.raises(Exception):  # noqa: B017, PT011 - fastavro raises many kinds
            read.extend(fastavro.reader(io.BytesIO(container.data)))
        if container.mutation == "invalid_utf8_container":
            assert read == [] and not is_utf8(container.data)
            assert isinstance(container.records[0], Mutant) and container.records[1:] == (group[0].seq,)
        else:
            assert len(read) == len(group) == len(container.seqs), container.mutation
            assert isinstance(container.records[-1], Mutant)


def _read_snappy_literals(file: io.BytesIO) -> io.BytesIO:
    """A block of `snappy_literals` and its CRC-32, as fastavro's snappy reader reads one: from
    the file at the block's size."""
    size = _varint(file)
    block = file.read((size >> 1) ^ -(size & 1))  # zig-zag
    data = io.BytesIO(block[:-4])
    length, out = _varint(data), b""
    while tag := data.read(1):
        assert tag[0] & 3 == 0, "a literal"
        count = max(0, (tag[0] >> 2) - 59)
        out += data.read((int.from_bytes(data.read(count), "little") if count else tag[0] >> 2) + 1)
    assert len(out) == length and zlib.crc32(out).to_bytes(4, "big") == block[-4:]
    return io.BytesIO(out)


def _varint(file: io.BytesIO) -> int:
    value, shift = 0, 0
    while True:
        byte = file.read(1)[0]
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value
