"""The hostile-input mutations themselves (tests/support/hostile_inputs.py), without dbt: a
plan is reproducible from its seed, each hostile line is what its mutation class says, and a
damaged container file reads to its damage and no further. The build over them is
tests/integration/test_hostile_input.py."""

from __future__ import annotations

import io
import json
from typing import Any

import fastavro
import pytest
from hypothesis import strategies as st

from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.stream import logical_stream
from support.hostile_inputs import (
    CONTAINER_MUTATIONS,
    FORMAT_RULES,
    Source,
    container_mutants,
    draw_examples,
    is_utf8,
    mutable_sources,
    plan,
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
    """Truncated, NaN and too-deep lines are not JSON; duplicate keys repeat a key; a wrong type
    is not a type the field allows; blank lines are blank."""
    rules = FORMAT_RULES[name]
    sources = mutable_sources(
        rules, [(s.seq, line) for s in logical_stream(SEED, 10) for line in FORMATS[name].encode(s)]
    )
    for mutant in plan(rules, sources, sources[:3], SEED):
        if mutant.mutation in ("truncated", "non_numeric_number") or (
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
def test_damaged_container_files_read_to_their_damage_and_no_further(name: str) -> None:
    """fastavro reads each damaged container's valid records, then fails on the damaged one."""
    rules = FORMAT_RULES[name]
    encoded = [(s.seq, line) for s in logical_stream(SEED, 10) for line in FORMATS[name].encode(s)]
    groups = [[Source(seq, line, json.loads(line))] for seq, line in encoded[:4]]
    containers = container_mutants(rules, mutable_sources(rules, encoded), groups, SEED)
    assert sorted({c.mutation for c in containers}) == sorted(CONTAINER_MUTATIONS)
    for container, group in zip(containers, groups, strict=True):
        read: list[Any] = []
        with pytest.raises(Exception):  # noqa: B017, PT011 - fastavro raises many kinds
            read.extend(fastavro.reader(io.BytesIO(container.data)))
        assert len(read) == len(group) == len(container.seqs), container.mutation
