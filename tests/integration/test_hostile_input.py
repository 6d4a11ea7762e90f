"""Bad input never fails a build and is never lost: one build over hostile landed lines.

For every format, valid messages of a generated stream (cdc_tools.generator) are landed
interleaved with a few hundred hostile lines drawn by hypothesis from mutations of those
messages (tests/support/hostile_inputs.py: truncated lines, every field with a wrong JSON type,
missing fields, unknown operation codes, blank lines, non-objects, batches mixing good and bad
messages, thousands of columns, megabyte values, deep nesting, invalid UTF-8, NaN/Infinity,
duplicate keys, names made of quotes and SQL, numbers no double holds, lone surrogate escapes,
empty column names, blanks before a line, event times before 1990 or after 2200, NULL key
values, names too long for a partition folder, values over 20 MB; for the Avro formats, lines in
Avro's JSON encoding with unknown union branches too, and binary container files whose last
record is damaged (a union index out of range or a block cut short), whose blocks are snappy or
deflate, or (OMS) with a record of bytes that are not UTF-8). The draw is seeded (SEED), so a
failure reproduces. ONE `dbt build` (with its data tests) reads them all; then, line by line: every
line has exactly one outcome per message, hostile lines get the outcome their mutation implies
(a rejection with its specific reason, or use with their values and names verbatim), the
valid messages give exactly the facts the generator expects, and a valid message of each format
landed in every other format's folder is rejected and named as its own format's.

The same module proves that the reconciliation data tests fail when counts do not hold (their
compiled SQL, run on tampered relations) and that `dbt source freshness` works on the local
target.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from cdc_tools.generator.expected import expected_row_changes, expected_schema_changes
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.stream import logical_stream
from cdc_tools.registry import project_formats
from support.compared_facts import expected_row_change, expected_schema_change, fact_row_change, fact_schema_change
from support.dbt_harness import ANSI_MODE, DATA_BUILD, MARTS, REPO, Build, file_name, profiles_dir
from support.dbt_worker import DbtWorker
from support.hostile_inputs import (
    CASE_TWIN_IMAGE,
    FORMAT_RULES,
    SQL_AND_QUOTES,
    Mutant,
    Source,
    container_mutants,
    is_utf8,
    messages_of,
    mutable_sources,
    plan,
)

SEED = 20261123  # the stream's and hypothesis's seed: the same seed lands the same lines
STATEMENTS = 60
FILES_PER_FORMAT = 3
FORMAT_NAMES = tuple(FORMAT_RULES)
# debezium_avro's lines are Debezium JSON (its records as Kafka Connect's JSON): each is at home
# in the other's folder, and elsewhere named debezium_json.
SPELLED_AS = {"debezium_avro": "debezium_json"}
OUTCOMES = "int_messages"


@dataclass(frozen=True)
class Line:
    """A landed line: a valid statement's line (`seq`) or a hostile one (`mutant`)."""

    source_format: str
    file: str
    number: int
    data: bytes
    seq: int | None = None
    mutant: Mutant | None = None
    misplaced_from: str | None = None  # the format a valid message landed in this folder is named as


@dataclass
class Landing:
    root: Path
    lines: dict[tuple[str, str, int], Line]  # (format, file name, line number) -> line
    row_changes: dict[int, list[dict[str, Any]]]  # statement seq -> expected row changes
    schema_changes: dict[int, list[dict[str, Any]]]
    dbt_vars: dict[str, Any]
    container_files: dict[tuple[str, str], str]  # (format, file name) -> its container class


def write_landing(root: Path) -> Landing:
    statements = list(logical_stream(SEED, STATEMENTS))
    keys = {f"{s.table.database}.{s.table.name}": list(s.table.key) for s in statements if s.table}
    lines: dict[tuple[str, str, int], Line] = {}
    container_files: dict[tuple[str, str], str] = {}
    first_lines: dict[str, str] = {}  # each format's first valid line, landed in the others' folders
    for number, name in enumerate(FORMAT_NAMES):
        rules = FORMAT_RULES[name]
        valid: list[tuple[int, str]] = []
        spare: list[Source] = []  # landed only inside mixed batches
        contained: list[list[Source]] = []  # Avro: statements landed only in container files
        for statement in statements:
            encoded = FORMATS[name].encode(statement)
            if rules.batches and statement.seq % 5 == 4 and len(encoded) == 1 and len(messages_of(encoded[0])) == 1:
                spare.append(Source(statement.seq, encoded[0], messages_of(encoded[0])[0]))
            elif rules.avro_schema and statement.seq % 5 == 4:
                contained.append([Source(statement.seq, line, json.loads(line)) for line in encoded])
            else:
                valid += [(statement.seq, line) for line in encoded]
        first_lines[name] = next(line for _, line in valid if line.startswith("{"))  # not a batch
        sources = mutable_sources(rules, valid)
        entries: list[tuple[int | None, bytes, Mutant | None]] = [(seq, line.encode(), None) for seq, line in valid]
        entries += [(None, mutant.line, mutant) for mutant in plan(rules, sources, spare, SEED + 10_000 * number)]
        random.Random(SEED).shuffle(entries)
        folder = root / name
        folder.mkdir(parents=True)
        containers = container_mutants(rules, sources, contained, SEED + 10_000 * number + 5_000)
        for part, container in enumerate(containers):
            file = f"part-{part}.avro"
            (folder / file).write_bytes(container.data)
            container_files[(name, file)] = container.mutation
            for index, record in enumerate(container.records, start=1):
                if isinstance(record, Mutant):
                    lines[(name, file, index)] = Line(name, file, index, b"", None, record)
                else:
                    lines[(name, file, index)] = Line(name, file, index, b"", record)
        for part in range(FILES_PER_FORMAT):
            file = f"part-{part}.jsonl"
            chunk = entries[part::FILES_PER_FORMAT]
            (folder / file).write_bytes(b"".join(data + b"\n" for _, data, _ in chunk))
            for index, (seq, data, mutant) in enumerate(chunk, start=1):
                lines[(name, file, index)] = Line(name, file, index, data, seq, mutant)
    for name in FORMAT_NAMES:
        others = [other for other in FORMAT_NAMES if SPELLED_AS.get(other, other) != SPELLED_AS.get(name, name)]
        (root / name / "misplaced.jsonl").write_text("".join(first_lines[other] + "\n" for other in others))
        for index, other in enumerate(others, start=1):
            lines[(name, "misplaced.jsonl", index)] = Line(
                name, "misplaced.jsonl", index, first_lines[other].encode(), misplaced_from=SPELLED_AS.get(other, other)
            )
    return Landing(
        root,
        lines,
        {s.seq: expected_row_changes(s) for s in statements},
        {s.seq: expected_schema_changes(s) for s in statements},
        # Every line is judged on its own: a mutant that keeps its original's change (a new `ts`)
        # would be its redelivery under the formats' default identity rules.
        {"cdc_primary_keys": keys, "cdc_change_identity": dict.fromkeys(FORMAT_NAMES, "text")},
        container_files,
    )


# ------------------------------------------------------------------------------- fixtures

FRESHNESS_AGE = {"canal_json": timedelta(0), "debezium_json": timedelta(hours=8), "cloudcanal_json": timedelta(days=2)}


def _write_freshness_landing(root: Path) -> Path:
    """One file per format, landed now, 8 hours ago and 2 days ago; no kafka_river_json or Avro folders."""
    for name, age in FRESHNESS_AGE.items():
        (root / name).mkdir(parents=True)
        path = root / name / "part-0.jsonl"
        path.write_text("{}\n")
        landed = time.time() - age.total_seconds()
        os.utime(path, (landed, landed))
    return root


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Landing:
    return write_landing(tmp_path_factory.mktemp("hostile") / "landing")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, landing: Landing, shared_worker: DbtWorker) -> dict[str, Build]:
    root = tmp_path_factory.mktemp("hostile_build")
    profiles = profiles_dir(root)
    started = {
        "hostile": Build(
            "hostile input",
            root / "hostile",
            DATA_BUILD,
            landing.root,
            dbt_vars=landing.dbt_vars,
            schema="hostile",
            env=ANSI_MODE,
            worker=shared_worker,
        ),
        "freshness": Build(
            "source freshness",
            root / "freshness",
            ["source", "freshness"],
            _write_freshness_landing(root / "freshness_landing"),
            schema="hostile_freshness",
            check=False,
            env=ANSI_MODE,
            worker=shared_worker,
        ),
    }
    for build in started.values():
        build.start(profiles)
    return started


@pytest.fixture(scope="module")
def hostile(builds: dict[str, Build]) -> Build:
    return builds["hostile"]


@pytest.fixture(scope="module")
def results(hostile: Build) -> dict[str, list[dict[str, Any]]]:
    """The marts and every message's outcome."""
    tables = hostile.tables((*MARTS, OUTCOMES))
    return {name: table["rows"] for name, table in tables.items()}


def _key(row: dict[str, Any]) -> tuple[str, str, int]:
    return (row["source_format"], file_name(row["file_path"]), row["line_number"])


@pytest.fixture(scope="module")
def outcomes(results: dict[str, list[dict[str, Any]]]) -> dict[tuple[str, str, int], dict[int | None, tuple]]:
    """(format, file, line) -> {message_index: (disposition, reason)}."""
    by_line: dict[tuple[str, str, int], dict[int | None, tuple]] = defaultdict(dict)
    for row in results[OUTCOMES]:
        messages = by_line[_key(row)]
        assert row["message_index"] not in messages, f"two outcomes for {_key(row)} {row['message_index']}"
        messages[row["message_index"]] = (row["disposition"], row["disposition_reason"])
    return dict(by_line)


def _facts_by_message(rows: list[dict[str, Any]]) -> dict[tuple, list[dict[str, Any]]]:
    grouped: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[(*_key(row), row["message_index"])].append(row)
    return grouped


# ---------------------------------------------------------------------------------- tests


def test_build_over_hostile_input_succeeds_with_every_data_test_passing(hostile: Build) -> None:
    hostile.wait()
    statuses = hostile.run_results()
    # Reported, not failed: Debezium messages under hostile table names have no key anywhere;
    # null_key_value's changes have no key value; tables of other shapes drawn under one hostile
    # name may give its replica values that do not fit a column's type; bad messages are rejected.
    warned = {uid: s for uid, s in statuses.items() if s not in {"success", "pass"}}
    assert set(warned.values()) == {"warn"}
    assert (
        {
            "test.cdc_lakehouse.warn_tables_without_keys",
            "test.cdc_lakehouse.warn_row_changes_without_key_values",
            "test.cdc_lakehouse.warn_rejected_messages_this_run",
        }
        <= set(warned)
        <= {
            "test.cdc_lakehouse.warn_tables_without_keys",
            "test.cdc_lakehouse.warn_row_changes_without_key_values",
            "test.cdc_lakehouse.warn_rejected_messages_this_run",
            "test.cdc_lakehouse.warn_replica_values_overflow",
        }
    )
    ran = " ".join(statuses)
    for test in (
        "landed_lines_reconcile",
        "assert_row_change_messages_reach_the_fact",
        "assert_schema_change_messages_reach_the_fact",
        "each_message_has_one_outcome",
    ):
        assert test in ran, f"{test} did not run"
    # Under ANSI mode, where a failing cast or an overflow fails the query instead of giving NULL.
    assert hostile.spark_setting("spark.sql.ansi.enabled") == "true"


def test_landing_holds_every_mutation_class_of_every_format(landing: Landing) -> None:
    classes = Counter((line.source_format, line.mutant.mutation) for line in landing.lines.values() if line.mutant)
    # Container files by class: compressed ones hold valid records only.
    containers = {(name, mutation) for (name, _), mutation in landing.container_files.items()}
    for name, rules in FORMAT_RULES.items():
        for mutation in (*rules.mutations, "wrong_type"):
            assert classes[(name, mutation)] >= 1, (name, mutation)
        for mutation in rules.container_mutations:
            assert (name, mutation) in containers, (name, mutation)
    assert sum(classes.values()) >= 400


def test_every_landed_line_has_exactly_one_outcome_per_message(landing: Landing, outcomes: dict) -> None:
    assert set(outcomes) == set(landing.lines)


def test_each_hostile_line_gets_the_outcome_its_mutation_implies(landing: Landing, outcomes: dict) -> None:
    problems = []
    for key, line in landing.lines.items():
        if line.mutant is None:
            continue
        got = outcomes[key]
        if set(got) != set(line.mutant.expected):
            problems.append(
                f"{line.mutant.mutation} {key}: messages {sorted(got, key=str)}, "
                f"expected {sorted(line.mutant.expected, key=str)}: {line.data[:300]!r}"
            )
            continue
        for index, allowed in line.mutant.expected.items():
            if got[index] not in allowed:
                problems.append(
                    f"{line.mutant.mutation} {key}[{index}]: {got[index]}, "
                    f"expected one of {sorted(allowed, key=str)}: {line.data[:300]!r}"
                )
    assert problems == [], f"{len(problems)} lines:\n" + "\n".join(problems[:40])


def test_every_rejection_is_in_fct_rejected_messages_with_its_reason_and_payload(
    landing: Landing, outcomes: dict, results: dict
) -> None:
    rejected = {(*_key(r), r["message_index"]): r for r in results["fct_rejected_messages"]}
    expected = {
        (*key, index): reason
        for key, messages in outcomes.items()
        for index, (disposition, reason) in messages.items()
        if disposition == "rejected"
    }
    assert {k: r["reason"] for k, r in rejected.items()} == expected
    assert all(reason not in (None, "") for reason in expected.values())
    for key, row in rejected.items():
        data = landing.lines[key[:3]].data
        if key[1].endswith(".avro"):  # the damage in a container file: no record to show
            assert row["payload"] is None, key
        else:
            assert row["payload"] == data.decode("utf-8", errors="replace") or not is_utf8(data), key


def test_a_message_in_another_format_s_folder_is_rejected_and_named_as_that_format_s(
    landing: Landing, outcomes: dict, results: dict
) -> None:
    """Each format's folder holds a valid message of every other format: each is rejected, and
    its `likely_format` names the format it was written in. No other rejection, of the hundreds
    of hostile lines, names a format."""
    likely = {(*_key(r), r["message_index"]): r["likely_format"] for r in results["fct_rejected_messages"]}
    problems = []
    for key, line in landing.lines.items():
        for index, (disposition, reason) in outcomes[key].items():
            got = likely.get((*key, index))
            if line.misplaced_from and (disposition, got) != ("rejected", line.misplaced_from):
                problems.append(f"{key}[{index}] from {line.misplaced_from}: {disposition} {reason}, likely {got}")
            elif not line.misplaced_from and got is not None:
                problems.append(
                    f"{key}[{index}] ({line.mutant and line.mutant.mutation}): likely {got}: {line.data[:200]!r}"
                )
    assert problems == [], f"{len(problems)} messages:\n" + "\n".join(problems[:40])


def test_valid_messages_among_hostile_ones_give_exactly_their_expected_facts(landing: Landing, results: dict) -> None:
    """Valid lines, and valid messages inside mixed batches, give the generator's facts."""
    seq_of: dict[tuple, int] = {}
    for key, line in landing.lines.items():
        if line.seq is not None:
            seq_of[key] = line.seq
        elif line.mutant is not None:
            for index, seq in line.mutant.valid_messages.items():
                seq_of[(*key, index)] = seq

    def seq(row: dict[str, Any]) -> int | None:
        key = _key(row)
        return seq_of.get(key, seq_of.get((*key, row["message_index"])))

    problems = []
    for name in FORMAT_NAMES:
        actual_rows: dict[int, list] = defaultdict(list)
        for r in results["fct_row_changes"]:
            if r["source_format"] == name and seq(r) is not None:
                actual_rows[seq(r)].append(fact_row_change(r))
        actual_schema: dict[int, list] = defaultdict(list)
        for r in results["fct_schema_changes"]:
            if r["source_format"] == name and seq(r) is not None:
                actual_schema[seq(r)].append(fact_schema_change(r))
        landed = {line.seq for line in landing.lines.values() if line.source_format == name and line.seq is not None}
        landed |= {
            s
            for line in landing.lines.values()
            if line.source_format == name and line.mutant
            for s in line.mutant.valid_messages.values()
        }
        assert len(landed) >= STATEMENTS // 2
        encoder = FORMATS[name]  # its times as the format can carry them
        for statement in sorted(landed):
            want_rows = sorted(
                (expected_row_change(r) for r in map(encoder.expected, landing.row_changes[statement])),
                key=repr,
            )
            if sorted(actual_rows[statement], key=repr) != want_rows:
                problems.append(f"{name} statement {statement}: rows {actual_rows[statement]} != {want_rows}")
            want_schema = (
                [expected_schema_change(r) for r in map(encoder.expected, landing.schema_changes[statement])]
                if encoder.carries_ddl
                else []
            )
            if actual_schema[statement] != want_schema:
                problems.append(f"{name} statement {statement}: schema {actual_schema[statement]} != {want_schema}")
    assert problems == [], "\n".join(problems[:20])


def _matches(want: Any, got: Any) -> bool:
    return bool(want.fullmatch(got or "")) if isinstance(want, re.Pattern) else want == got


def test_used_hostile_lines_keep_names_and_values_verbatim(landing: Landing, outcomes: dict, results: dict) -> None:
    """Names of quotes, backticks and SQL, thousands of columns, megabyte values, deep nesting,
    invalid UTF-8 (read as U+FFFD), numbers as their text and surrogate pairs as their character
    reach the facts exactly; a row change with a NULL key value has no key."""
    row_facts = _facts_by_message(results["fct_row_changes"])
    schema_facts = _facts_by_message(results["fct_schema_changes"])
    checked = Counter()
    problems = []
    for key, line in landing.lines.items():
        mutant = line.mutant
        if mutant is None or not (mutant.facts or mutant.image):
            continue
        for index, (disposition, _) in outcomes[key].items():
            if disposition not in ("row_change", "schema_change"):
                continue
            facts = (row_facts if disposition == "row_change" else schema_facts).get((*key, index), [])
            if not facts:
                problems.append(f"{mutant.mutation} {key}[{index}]: no fact")
            for fact in facts:
                for column, want in mutant.facts.items():
                    if fact[column] != want:
                        problems.append(f"{mutant.mutation} {key}: {column} {fact[column]!r} != {want!r}")
                image = fact.get("after_image") or fact.get("before_image") or {}
                for column, want in mutant.image.items():
                    if not _matches(want, image.get(column)):
                        problems.append(f"{mutant.mutation} {key}: image[{column!r}] {str(image.get(column))[:80]!r}")
            checked[mutant.mutation] += 1
    assert problems == [], "\n".join(problems[:20])
    for mutation in (
        "hostile_names",
        "wide_image",
        "huge_value",
        "deep_nesting",
        "invalid_utf8",
        "extreme_number",
        "null_key_value",
    ):
        assert checked[mutation] >= len(FORMAT_NAMES), (mutation, checked)


def test_hostile_names_inject_no_sql_every_relation_still_exists(hostile: Build, results: dict) -> None:
    names = {r[c] for r in results["fct_row_changes"] for c in ("database_name", "table_name")}
    assert names & set(SQL_AND_QUOTES), "no hostile name reached the facts"
    # Every mart was read above; the relations the hostile names name are there and full.
    assert all(results[mart] for mart in ("fct_row_changes", "fct_schema_changes", "fct_rejected_messages"))
    assert len({r["change_id"] for r in results["fct_row_changes"]}) == len(results["fct_row_changes"])


def test_columns_twinned_by_case_each_get_a_replica_column_named_by_the_rule(hostile: Build, results: dict) -> None:
    """A table with columns `Twin`, `twin`, `_OVERFLOW` and `_change_type` builds its replica
    (Spark ignores case in names; Delta refuses a change data feed to a table with a column of
    its own, `_change_type`): each of them is its name, `_` and 8 hex digits of its SHA-256."""
    twinned = sorted(
        {
            (r["database_name"], r["table_name"])
            for r in results["fct_row_changes"]
            if "Twin" in (r["after_image"] or r["before_image"] or {})
        }
    )
    assert twinned
    renamed = {name: f"{name}_{hashlib.sha256(name.encode()).hexdigest()[:8]}" for name in CASE_TWIN_IMAGE}
    columns = {(r["database_name"], r["table_name"], r["column_name"]): r for r in results["dim_replica_columns"]}
    for table in twinned:
        assert {name: columns[(*table, name)]["replica_column_name"] for name in CASE_TWIN_IMAGE} == renamed
    listing = {(r["database_name"], r["table_name"]): r["replica_name"] for r in results["dim_replica_tables"]}
    replicas = hostile.tables(tuple(listing[table] for table in twinned), suffix="_replica")
    for replica in replicas.values():
        assert set(renamed.values()) | {"_overflow"} <= set(replica["types"])


def test_reconciliation_mart_balances_lines_and_messages_per_format(landing: Landing, results: dict) -> None:
    per_format: dict[str, Counter] = defaultdict(Counter)
    for row in results["fct_message_reconciliation"]:
        parts = sum(
            row[k] for k in ("row_change_messages", "schema_change_messages", "skipped_messages", "rejected_messages")
        )
        assert row["messages"] == parts, row
        per_format[row["source_format"]].update({"lines": row["landed_lines"], "rejected": row["rejected_messages"]})
    for name in FORMAT_NAMES:
        lines = [line for line in landing.lines.values() if line.source_format == name]
        assert per_format[name]["lines"] == len(lines), name
        assert per_format[name]["rejected"] == sum(
            r["source_format"] == name for r in results["fct_rejected_messages"]
        ), name


# ------------------------------------------- reconciliation tests fail when counts do not hold


def _data_test(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    tests = [
        node
        for node in manifest["nodes"].values()
        if node["resource_type"] == "test" and name in (node["name"], node.get("test_metadata", {}).get("name"))
    ]
    assert len(tests) == 1, name
    return tests[0]


def _run_on(spark: Any, manifest: dict[str, Any], test: dict[str, Any], relations: dict[str, str]) -> int:
    """Rows the test's compiled SQL returns with each relation it reads replaced by a temp view
    holding `relations[name]` (a SELECT; a source named `<source>.<table>`, and the whole-file
    table under a landing source `<source>.<table>__files`)."""
    assert test["config"]["severity"].upper() == "ERROR" and test["config"]["error_if"] == "!= 0"
    sql = test["compiled_code"]
    resources = {**manifest["nodes"], **manifest["sources"]}
    for unique_id in test["depends_on"]["nodes"]:
        resource = resources[unique_id]
        name = f"{resource['source_name']}.{resource['name']}" if "source_name" in resource else resource["name"]
        assert resource["relation_name"] in sql, resource["relation_name"]
        sql = sql.replace(resource["relation_name"], _tampered(name))
    for name, relation in relations.items():
        spark.sql(f"create or replace temp view {_tampered(name)} as {relation}")
    return spark.sql(sql).count()


def _tampered(name: str) -> str:
    return "tampered_" + name.replace(".", "__")


MODIFIED_AT = "2024-01-01 00:00:00"  # every landed file's modification time here


def _file(path: str) -> str:
    """A landed file's `_metadata`, as a whole-file table gives it."""
    return f"named_struct('file_path', '{path}', 'file_modification_time', timestamp'{MODIFIED_AT}')"


# f1 holds two lines, f2 one without a final line terminator.
LANDED_FILES = rf"select * from values ({_file('f1')}, 'x\ny\n'), ({_file('f2')}, 'z') as t(_metadata, value)"


def _reconciliation(*rows: str, loaded_at: str = MODIFIED_AT) -> str:
    """Reconciled files, each read when it was last modified (`_file`) unless `loaded_at` says
    earlier."""
    return (
        f"select *, timestamp'{loaded_at}' as landed_at from values "
        + ", ".join(rows)
        + " as t(source_format, file_path, landed_lines)"
    )


def _outcomes(*rows: str) -> str:
    columns = "t(source_format, file_path, line_number, message_index, disposition, landed_at)"
    return "select * from values " + ", ".join(rows) + " as " + columns


LANDED_AT = "timestamp'2024-01-01 00:00:00'"


def _changes(*rows: str) -> str:
    body = ", ".join(rows) if rows else "('none', 'none', -1, -1)"
    columns = "t(change_id, file_path, line_number, message_index)"
    return f"select * from values {body} as {columns}" + ("" if rows else " where false")


@pytest.fixture(scope="module")
def manifest(hostile: Build) -> dict[str, Any]:
    hostile.wait()
    return json.loads((hostile.target_dir / "manifest.json").read_text())


def test_landed_lines_reconcile_fails_when_a_line_or_file_is_lost(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "assert_landed_lines_reconcile")
    no_lines = "select * from values ('', 0, timestamp'2024-01-01') as t(file_path, line_number, landed_at) where false"
    no_files = f"select {_file('')} as _metadata, '' as value where false"
    landings = {f"{name}.landed_lines": no_lines for name in FORMAT_NAMES}
    landed_files = {f"{name}.landed_lines__files": no_files for name in FORMAT_NAMES}
    registry = project_formats(REPO)
    containers = {f"base_{name}__container_records": no_lines for name in FORMAT_NAMES if registry[name].containers}

    def run(*rows: str, debezium: str = no_files, loaded_at: str = MODIFIED_AT) -> int:
        relations = {
            **landings,
            **landed_files,
            **containers,
            "canal_json.landed_lines__files": LANDED_FILES,
            "debezium_json.landed_lines__files": debezium,
            "fct_message_reconciliation": _reconciliation(*rows, loaded_at=loaded_at),
        }
        return _run_on(spark, manifest, test, relations)

    # Five lines, the last one CRLF-terminated; an empty file has none to reconcile.
    nine = rf"select * from values ({_file('f9')}, 'a\n\nb\nc\nd\r\n') as t(_metadata, value)"
    empty = f"select * from values ({_file('f9')}, '') as t(_metadata, value)"
    assert (
        run("('canal_json', 'f1', 2L)", "('canal_json', 'f2', 1L)", "('debezium_json', 'f9', 5L)", debezium=nine) == 0
    )
    assert run("('canal_json', 'f1', 2L)", "('canal_json', 'f2', 1L)", debezium=empty) == 0
    assert run("('canal_json', 'f1', 1L)", "('canal_json', 'f2', 1L)") == 1  # a line of f1 lost
    assert run("('canal_json', 'f1', 2L)") == 1  # f2 lost
    # A file counted that never landed, in its format or at all.
    assert run("('canal_json', 'f1', 2L)", "('canal_json', 'f2', 1L)", "('debezium_json', 'f9', 5L)") == 1
    assert run("('canal_json', 'f1', 2L)", "('canal_json', 'f2', 1L)", "('canal_json', 'f3', 1L)") == 1
    # f1 had one line when loaded and was modified since: fct_landed_files' changed_after_load.
    assert run("('canal_json', 'f1', 1L)", "('canal_json', 'f2', 1L)", loaded_at="2023-12-31 00:00:00") == 0


def test_row_changes_reach_the_fact_fails_when_a_message_or_change_is_lost(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "assert_row_change_messages_reach_the_fact")
    outcomes = _outcomes(
        f"('canal_json', 'f1', 1, 0, 'row_change', {LANDED_AT})", f"('canal_json', 'f1', 2, 0, 'rejected', {LANDED_AT})"
    )
    change = "('c1', 'f1', 1, 0)"

    def run(row_changes: str, facts: str) -> int:
        return _run_on(
            spark,
            manifest,
            test,
            {
                "int_messages": outcomes,
                "int_row_changes_labelled": row_changes,
                "fct_row_changes": facts,
            },
        )

    assert run(_changes(change), _changes(change)) == 0
    assert run(_changes(), _changes()) == 1  # the DML message gave no row change
    assert run(_changes(change), _changes()) == 1  # its row change is not in the fact


def test_schema_changes_reach_the_fact_fails_when_a_message_or_change_is_lost(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "assert_schema_change_messages_reach_the_fact")
    outcomes = _outcomes(f"('canal_json', 'f1', 1, 0, 'schema_change', {LANDED_AT})")
    change = "('c1', 'f1', 1, 0)"

    def run(schema_changes: str, facts: str) -> int:
        return _run_on(
            spark,
            manifest,
            test,
            {
                "int_messages": outcomes,
                "int_schema_changes": schema_changes,
                "fct_schema_changes": facts,
            },
        )

    assert run(_changes(change), _changes(change)) == 0
    assert run(_changes(), _changes()) == 1
    assert run(_changes(change), _changes()) == 1


def test_one_outcome_per_message_fails_when_a_message_is_counted_twice_or_has_none(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "each_message_has_one_outcome")
    row = f"('canal_json', 'f1', 1, 0, 'row_change', {LANDED_AT})"
    other = f"('canal_json', 'f1', 1, 1, 'rejected', {LANDED_AT})"

    def run(*rows: str) -> int:
        return _run_on(spark, manifest, test, {"int_messages": _outcomes(*rows)})

    assert run(row, other) == 0
    assert run(row, other, f"('canal_json', 'f1', 1, 0, 'rejected', {LANDED_AT})") == 1
    assert run(row, f"('canal_json', 'f1', 1, 1, null, {LANDED_AT})") == 1
    assert run(row, f"('canal_json', 'f1', 1, 1, 'lost', {LANDED_AT})") == 1
    assert run(row, "('canal_json', 'f1', 1, 1, 'rejected', null)") == 1


def test_row_checks_fail_with_each_failing_check(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "row_checks_fct_schema_changes")
    kwargs = test["test_metadata"]["kwargs"]
    assert kwargs["not_null"] == ["change_id", "source_format", "database_name", "ddl_kind"]
    assert kwargs["unique"] == [["change_id"]]
    columns = "t(change_id, source_format, database_name, ddl_kind, loaded_at)"

    def run(*rows: str) -> int:
        changes = f"select * from values {', '.join(rows)} as {columns}"
        return _run_on(spark, manifest, test, {"fct_schema_changes": changes})

    full = "('c1', 'canal_json', 'shop', 'ALTER', timestamp'2024-01-01')"
    assert run(full) == 0
    assert run(full, "('c2', 'canal_json', null, 'ALTER', timestamp'2024-01-01')") == 1
    # One failing row per failing check, however many rows fail it.
    no_kind = "('c3', 'canal_json', 'shop', null, timestamp'2024-01-01')"
    # Three columns hold NULLs, and c3 is there twice.
    assert run(full, no_kind, no_kind, "('c4', null, null, 'DROP', timestamp'2024-01-01')") == 4
    assert run(full, "('c2', 'canal_json', 'shop', 'MERGE', timestamp'2024-01-01')") == 1
    assert run(full, full) == 1


def test_row_checks_fail_when_a_version_names_no_row_change(spark: Any, manifest: dict) -> None:
    test = _data_test(manifest, "row_checks_dim_row_versions")
    columns = (
        "t(database_name, table_name, primary_key, row_image, is_current, opened_by_change_id, change_number,"
        " opened_by_operation, closed_by_operation, before_image_source, dropped_columns, loaded_at)"
    )

    def run(*versions: tuple[str, str, str]) -> int:
        """Versions of `users`, each (its opening change, its row's key, the change's operation)."""
        rows = ", ".join(
            f"('shop', 'users', '{key}', map('id', '{key}'), true, '{change}', {i}, '{operation}', null, 'message',"
            " array(), timestamp'2024-01-01')"
            for i, (change, key, operation) in enumerate(versions)
        )
        tables = {
            "dim_row_versions": f"select * from values {rows} as {columns}",
            "fct_row_changes": "select * from values ('c1'), ('c2') as t(change_id)",
            "fct_schema_changes": "select * from values ('r1') as t(change_id)",
        }
        return _run_on(spark, manifest, test, tables)

    assert run(("c1", "k1", "INSERT"), ("c2", "k2", "UPDATE"), ("r1", "k1", "RENAME"), ("r1", "k2", "RENAME")) == 0
    assert run(("c1", "k1", "INSERT"), ("c3", "k2", "INSERT")) == 1  # no such row change
    assert run(("c1", "k1", "INSERT"), ("c1", "k1", "INSERT")) == 1  # one change, two versions of a row
    assert run(("c1", "k1", "RENAME")) == 1  # a rename is a schema change


# ---------------------------------------------------------------------------- freshness


def test_source_freshness_runs_on_the_local_target_and_grades_landing_age(builds: dict[str, Build]) -> None:
    freshness = builds["freshness"]
    freshness.wait()
    sources = json.loads((freshness.target_dir / "sources.json").read_text())
    status = {r["unique_id"].split(".")[2]: r["status"] for r in sources["results"]}
    # A format this landing has no folder for has no landed file: error.
    assert status == {
        **{name: "error" for name in project_formats(REPO)},
        "canal_json": "pass",
        "debezium_json": "warn",
        "cloudcanal_json": "error",
    }
    assert freshness.succeeded is False  # an error fails the command
