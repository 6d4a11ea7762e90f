"""Incremental runs: landing the generated stream in parts, with a build after each part (one
of them killed midway), gives exactly the marts of one `--full-refresh` build over all of it.

The generator writes the stream in every format (the Avro ones as binary container files), in
small files. The files are landed in three parts, each part taking every third file of each
format, so every part after the first holds changes older than some already built (late data
for the replicas). An OMS shard set split across two files stays in one part: a set whose
pieces land in different runs is rejected as incomplete_shards (docs/incremental-runs.md). On one warehouse:

1. part 1, `dbt build` (creates every table; every data test passes);
2. part 2, `dbt run` killed (SIGKILL to dbt and its JVM) once the staged models have loaded
   part 2 and before the facts hold it: a crash between models;
3. `dbt run`: catches up the killed run;
4. part 3, plus a copy of a part-1 file under another name (an exact redelivery), `dbt build`;
5. `dbt run` with no new data;
6. `dbt run --select fct_replica_changes --full-refresh`: the same loads, made anew;
7. `dbt run --full-refresh` over everything.

Step 4 is a whole build, so the data tests (reconciliation included) run on incremental state;
they read what was loaded since step 1, the last build whose data tests all passed: parts 2 and 3.

The marts are read after steps 4, 5 and 7 (fct_replica_changes after 6 too), and after step 5
the Delta logs of the staged and row-change tables (their data files' `loaded_at` statistics).
`loaded_at` (when a row was loaded) is the only column that may differ between incremental and
full-refresh builds; step 6 keeps the loads, so fct_replica_changes must equal it row for row.

Step 7 is also this suite's build of a generated stream on the local target with ANSI mode off
(dbt-spark's default; the equivalence test builds one on the Thrift server with ANSI on): its
facts are each format's as the generator expects them.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastavro
import pytest

from cdc_tools.generator.formats import FORMATS as ENCODERS
from cdc_tools.generator.stream import final_tables
from cdc_tools.generator.writer import DBT_VARS_FILE, EXPECTED_FOLDER, FormatCounts, generate
from support.compared_facts import compared_facts, final_table_difference, multiset_difference
from support.dbt_harness import DATA_BUILD, MARTS, Build, file_name, profiles_dir
from support.dbt_worker import DbtWorker

FORMATS = tuple(ENCODERS)
STATEMENTS = 300
SEED = 20240607
FILE_BYTES = 12_000  # several files per format
PARTS = 3
STAGED_TABLES = tuple(f"stg_{name}__messages" for name in FORMATS)
# The tables whose data files' loaded_at statistics are read after step 5.
LOADED_AT_TABLES = (*STAGED_TABLES, "int_row_changes_labelled", "fct_row_changes")
# The copied file: a part-1 file of this format, landed again with part 3 under another name.
REDELIVERED_FORMAT = "canal_json"
REDELIVERED_NAME = "redelivered-copy.jsonl"
# The model after which step 2 is killed: every staged model has loaded part 2 by then.
KILL_AFTER = "int_row_changes_labelled"
SCHEMA = "incremental"
# The models whose query in step 5, as dbt compiled it, the tests read.
RERUN_SQL = {
    "dim_row_versions": "models/marts/rows/dim_row_versions.sql",
    "int_schema_changes": "models/intermediate/int_schema_changes.sql",
    "fct_rejected_messages": "models/marts/outcomes/fct_rejected_messages.sql",
}


@dataclass
class Runs:
    generated: Path  # where the generator wrote the stream and its expected facts
    landing: Path
    parts: list[list[Path]]  # landed files per part (paths under landing)
    redelivered: tuple[Path, Path]  # (original, copy)
    killed_output: str  # dbt's output up to the kill
    # Model name -> dbt's message for it, in step 3 (the catch-up), step 4 and step 5.
    messages: dict[str, dict[str, str]]
    seed_messages: dict[str, dict[str, str]]  # seed name -> dbt's message, in steps 1 and 4
    incremental_models: set[str]
    after_part_3: dict[str, list[dict[str, Any]]]
    after_part_3_tests: dict[str, str]  # the compiled SQL of step 4's data tests, by name
    rerun: dict[str, list[dict[str, Any]]]  # the marts and the staged tables
    full_refresh: dict[str, list[dict[str, Any]]]
    rerun_replicas: dict[str, list[dict[str, Any]]]  # each typed replica's rows, by relation name
    # After step 5, each data file's loaded_at (min, max) statistics in its Delta log, by table.
    loaded_at_files: dict[str, list[tuple[Any, Any] | None]]
    change_feed: list[dict[str, Any]]  # fct_row_changes' Delta change data feed after step 5
    rerun_sql: dict[str, str]  # the query of each of RERUN_SQL in step 5, as dbt compiled it
    newest_message_load: int  # int_messages' newest loaded_at after step 5, in Unix microseconds
    # fct_replica_changes made anew over step 5's loads (step 6).
    replica_changes_refreshed: list[dict[str, Any]]
    full_refresh_replicas: dict[str, list[dict[str, Any]]]


def _land(files: list[Path], source: Path, landing: Path) -> list[Path]:
    landed = []
    for path in files:
        target = landing / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
        landed.append(target)
    return landed


def _landed_lines(path: Path) -> int:
    """Landing rows of a file: its lines, or a container file's records."""
    if path.suffix == ".avro":
        with path.open("rb") as container:
            return sum(1 for _ in fastavro.reader(container))
    return len(path.read_bytes().decode("utf-8").splitlines())


def _continues_a_shard_set(path: Path) -> bool:
    """Whether an OMS container file starts with a shard after the first of its set."""
    with path.open("rb") as container:
        first = next(iter(fastavro.reader(container)), None)
    return first is not None and first["total"] >= 1 and first["index"] > 0


def _landing_units(name: str, counts: FormatCounts) -> list[list[Path]]:
    """The files in landing order, each with the files that must land with it: an OMS file that
    continues a shard set, and a file a producer's restart began, with the files holding the
    originals of its copies (copies land after their originals, as they would)."""
    joined = {index for first, restart in counts.restarts for index in range(first + 1, restart + 1)}
    units: list[list[Path]] = []
    for index, path in enumerate(counts.files):
        if units and (index in joined or (name == "oms_avro" and _continues_a_shard_set(path))):
            units[-1].append(path)
        else:
            units.append([path])
    return units


def _finished_models(output: str) -> set[str]:
    return set(re.findall(r" OK created \S+ \S+ model \w+\.(\w+)", output))


def _kill_after_model(build: Build, profiles: Path, model: str) -> str:
    """Starts the build, kills it as soon as `model` is done, returns dbt's output so far."""
    build.start(profiles)
    deadline = time.monotonic() + 1800
    while model not in _finished_models(build.output_file.read_text()):
        assert not build.finished(), "dbt ended before the kill:\n" + build.output_file.read_text()[-4000:]
        assert time.monotonic() < deadline, f"{model} did not finish"
        time.sleep(0.1)
    build.kill()
    return build.output_file.read_text()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> Runs:
    root = tmp_path_factory.mktemp("incremental")
    generated = root / "generated"
    counts = generate(generated, STATEMENTS, SEED, FORMATS, max_file_bytes=FILE_BYTES, avro_encoding="binary")
    dbt_vars = json.loads((generated / EXPECTED_FOLDER / DBT_VARS_FILE).read_text())
    parts: list[list[Path]] = [[] for _ in range(PARTS)]
    for name in FORMATS:
        units = _landing_units(name, counts[name])
        assert len(units) >= 2 * PARTS, f"{name}: too few files to land in parts"
        for index, unit in enumerate(units):
            parts[index % PARTS].extend(unit)
    # The generated stream has no bad lines: a file of them, landed in part 2, feeds the rejections.
    rejects = generated / "canal_json" / "rejects.jsonl"
    rejects.write_text('not json\n{"database": "shop", "table": "t", "type": "UPSERT"}\n')
    parts[1].append(rejects)
    landing = root / "landing"
    profiles = profiles_dir(root)
    # The steps one after another on one schema, in the shared worker (started again after the kill).
    steps: list[Build] = []

    def step(args: list[str]) -> Build:
        build = Build(
            f"incremental step {len(steps) + 1}",
            root / f"step{len(steps) + 1}",
            args,
            landing,
            dbt_vars=dbt_vars,
            schema=SCHEMA,
            worker=shared_worker,
        )
        steps.append(build)
        return build

    def run(args: list[str]) -> Build:
        build = step(args)
        build.start(profiles)
        build.wait()
        return build

    landed = [_land(parts[0], generated, landing)]
    first_build = run(DATA_BUILD)
    landed.append(_land(parts[1], generated, landing))
    killed_output = _kill_after_model(step(["run"]), profiles, KILL_AFTER)
    catch_up = run(["run"])
    landed.append(_land(parts[2], generated, landing))
    original = next(path for path in landed[0] if path.parent.name == REDELIVERED_FORMAT)
    copy = original.with_name(REDELIVERED_NAME)
    shutil.copy(original, copy)  # a new file: landed now
    build_after_part_3 = run(DATA_BUILD)
    after_part_3 = build_after_part_3.marts()
    manifest = json.loads((build_after_part_3.target_dir / "manifest.json").read_text())
    after_part_3_tests = {  # the data tests step 4 ran: only those are compiled
        node["name"]: node["compiled_code"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "test" and "compiled_code" in node
    }
    rerun_build = run(["run"])
    messages = {
        "catch_up": catch_up.node_messages(),
        "part_3": build_after_part_3.node_messages(),
        "rerun": rerun_build.node_messages(),
    }
    seed_messages = {
        "part_1": first_build.node_messages("seed"),
        "part_3": build_after_part_3.node_messages("seed"),
    }
    incremental_models = {
        node["name"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["config"]["materialized"] == "incremental"
    }
    rerun = {name: table["rows"] for name, table in rerun_build.tables(MARTS + STAGED_TABLES).items()}
    rerun_replicas = _replicas(rerun_build)
    rerun.update({name: table["rows"] for name, table in rerun_build.tables(("fct_replica_changes",)).items()})
    change_feed = rerun_build.query(f"select _change_type, change_id from table_changes('{SCHEMA}.fct_row_changes', 0)")
    loaded_at_files = _loaded_at_file_stats(shared_worker.spark_dir / "warehouse" / f"{SCHEMA}.db")
    rerun_sql = {
        name: (rerun_build.target_dir / "compiled" / "cdc_lakehouse" / path).read_text()
        for name, path in RERUN_SQL.items()
    }
    newest_message_load = rerun_build.query(f"select unix_micros(max(loaded_at)) as newest from {SCHEMA}.int_messages")
    replica_changes_refreshed = run(["run", "--select", "fct_replica_changes", "--full-refresh"]).tables(
        ("fct_replica_changes",)
    )["fct_replica_changes"]["rows"]
    full_refresh_build = run(["run", "--full-refresh"])
    return Runs(
        generated,
        landing,
        landed,
        (original, copy),
        killed_output,
        messages,
        seed_messages,
        incremental_models,
        after_part_3,
        after_part_3_tests,
        rerun,
        full_refresh_build.marts(),
        rerun_replicas,
        loaded_at_files,
        change_feed,
        rerun_sql,
        newest_message_load[0]["newest"],
        replica_changes_refreshed,
        _replicas(full_refresh_build),
    )


def _loaded_at_file_stats(schema_dir: Path) -> dict[str, list[tuple[Any, Any] | None]]:
    """Of each of LOADED_AT_TABLES, each data file's loaded_at statistics in its Delta log,
    (min, max), or None where the log holds none: the files of the table's latest version,
    replayed from its commits (JSON, kept beside any checkpoint)."""
    files: dict[str, list[tuple[Any, Any] | None]] = {}
    for table in LOADED_AT_TABLES:
        live: dict[str, tuple[Any, Any] | None] = {}
        for commit in sorted((schema_dir / table / "_delta_log").glob("*.json")):
            for action in map(json.loads, commit.read_text().splitlines()):
                if "remove" in action:
                    live.pop(action["remove"]["path"], None)
                elif "add" in action:
                    stats = json.loads(action["add"].get("stats") or "{}")
                    low = stats.get("minValues", {}).get("loaded_at")
                    high = stats.get("maxValues", {}).get("loaded_at")
                    live[action["add"]["path"]] = None if low is None or high is None else (low, high)
        files[table] = list(live.values())
    return files


def _replicas(build: Build) -> dict[str, list[dict[str, Any]]]:
    names = tuple(row["replica_name"] for row in build.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"])
    return {name: table["rows"] for name, table in build.tables(names, suffix="_replica").items()}


def _rows(rows: list[dict[str, Any]], without: tuple[str, ...] = ()) -> Counter[str]:
    """The rows as a multiset of canonical JSON texts, leaving out the `without` columns."""
    return Counter(
        json.dumps({k: v for k, v in row.items() if k not in without}, sort_keys=True, default=str) for row in rows
    )


def _uri(path: Path) -> str:
    return path.resolve().as_uri().replace("file:///", "file:/")


@pytest.mark.parametrize("mart", MARTS)
def test_incremental_runs_give_exactly_the_marts_of_one_full_refresh(runs: Runs, mart: str) -> None:
    # When rows were loaded, and how a run wrote each replica, are the runs' own.
    differ = ("loaded_at", "loaded_through", "write_action")
    incremental = _rows(runs.rerun[mart], without=differ)
    full_refresh = _rows(runs.full_refresh[mart], without=differ)
    assert sum(full_refresh.values()) > 0 or mart == "dim_keyless_tables"  # every table has its key
    assert incremental == full_refresh


@pytest.mark.parametrize("format_name", FORMATS)
def test_full_refresh_gives_the_expected_facts(runs: Runs, format_name: str) -> None:
    expected, actual = compared_facts(runs.generated, runs.full_refresh, format_name, "row_changes")
    assert len(expected) > 450
    assert multiset_difference(expected, actual) == []
    expected, actual = compared_facts(runs.generated, runs.full_refresh, format_name, "schema_changes")
    assert multiset_difference(expected, actual) == []


def test_incremental_runs_give_exactly_the_replicas_of_one_full_refresh(runs: Runs) -> None:
    # Step 4 merged the keys with new versions into the tables the builds before made, late
    # changes among them (part 3 holds changes older than some of parts 1 and 2); a table whose
    # column changed type is made anew.
    writes = Counter(row["write_action"] for row in runs.after_part_3["dim_replica_tables"])
    assert set(writes) <= {"merged", "unchanged", "rewritten"} and writes["merged"] >= 3, writes
    assert sorted(runs.rerun_replicas) == sorted(runs.full_refresh_replicas)
    assert len(runs.full_refresh_replicas) >= 3
    for name, rows in runs.full_refresh_replicas.items():
        assert _rows(runs.rerun_replicas[name], without=("_loaded_at",)) == _rows(rows, without=("_loaded_at",)), name
    assert sum(len(rows) for rows in runs.full_refresh_replicas.values()) > 0


def test_replicas_hold_the_tables_as_the_stream_leaves_them(runs: Runs) -> None:
    # Their current columns, row for row. The stream drops a column and adds it again
    # (customers.tier): rows unchanged since the drop hold no value there, as in the source.
    names = {(r["database_name"], r["table_name"]): r["replica_name"] for r in runs.rerun["dim_replica_tables"]}
    tables = final_tables(SEED, STATEMENTS)
    assert sum(len(rows) for _, rows in tables.values()) > 0
    for table_id, (table, rows) in tables.items():
        replica = runs.rerun_replicas[names[table_id]]
        assert len(replica) == len(rows) and final_table_difference(table, rows, replica) == [], table_id


def test_each_load_s_net_changes_chain_into_the_current_rows(runs: Runs) -> None:
    """fct_replica_changes over four loads (late and re-sent changes among them): a row's
    changes follow on from each other (each load starts from the image the one before left),
    and the last leaves the row as dim_current_rows has it."""
    changes: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in sorted(runs.rerun["fct_replica_changes"], key=lambda r: r["loaded_at"]):
        changes.setdefault((row["database_name"], row["table_name"], row["primary_key"]), []).append(row)
    assert len({row["loaded_at"] for rows in changes.values() for row in rows}) >= 3
    for key, rows in changes.items():
        for earlier, later in itertools.pairwise(rows):
            assert later["before_image"] == earlier["after_image"], key
        assert rows[0]["change_type"] == "INSERT" and rows[0]["before_image"] is None, key
    current = {
        (r["database_name"], r["table_name"], r["primary_key"]): r["row_image"] for r in runs.rerun["dim_current_rows"]
    }
    last = {key: rows[-1]["after_image"] for key, rows in changes.items() if rows[-1]["after_image"] is not None}
    assert last == current


def test_incremental_runs_give_the_replica_changes_of_a_full_refresh_over_the_same_loads(runs: Runs) -> None:
    """Each incremental run computed again only the keys with rebuilt versions (late changes,
    a kill and a redelivery among the loads), and left the same rows as fct_replica_changes
    made anew over the same loads: loaded_at included."""
    assert len({row["loaded_at"] for row in runs.replica_changes_refreshed}) >= 3
    assert _rows(runs.rerun["fct_replica_changes"]) == _rows(runs.replica_changes_refreshed)


@pytest.mark.parametrize("mart", MARTS)
def test_rerun_with_no_new_data_changes_nothing(runs: Runs, mart: str) -> None:
    # loaded_at included: no row was rewritten either; the rerun wrote no replica.
    assert len(runs.rerun[mart]) == len(runs.after_part_3[mart])
    if mart == "dim_replica_tables":
        assert {row["write_action"] for row in runs.rerun[mart]} == {"unchanged"}
    assert _rows(runs.rerun[mart], without=("write_action",)) == _rows(
        runs.after_part_3[mart], without=("write_action",)
    )


def test_rerun_with_no_new_data_plans_no_row_version(runs: Runs) -> None:
    # No change loaded since the row versions' newest: their query is empty (the test above shows
    # them unchanged), not the whole history planned and run to find nothing to merge.
    query = [
        line for line in runs.rerun_sql["dim_row_versions"].splitlines() if line.strip() and not line.startswith("--")
    ]
    assert query == [f"select * from {SCHEMA}.dim_row_versions where false"]


def test_a_run_leaves_the_models_with_nothing_new_as_they_are(runs: Runs) -> None:
    """An incremental model none of whose inputs holds anything new is not run (not planned,
    and for a Python model not executed), and a table built from the same inputs is kept
    (macros/incremental/)."""
    skipped = {name for name, message in runs.messages["rerun"].items() if message == "NOTHING NEW"}
    # fct_rejected_messages and int_schema_changes too, to which a load may give no row (part 3
    # holds no bad line): they keep the newest load they read (below).
    assert skipped >= runs.incremental_models
    # A table built from the same query over inputs with nothing new is kept; one that reads the
    # landing is built again.
    tables = {"dim_replica_columns", "dim_keyless_tables", "fct_landed_files"}
    kept = {name for name in tables if runs.messages["rerun"][name] == "UNCHANGED"}
    assert kept == tables - {"fct_landed_files"}
    # After the kill, the staged models had loaded part 2: only what came after them runs.
    caught_up = {name for name, message in runs.messages["catch_up"].items() if message != "NOTHING NEW"}
    assert set(STAGED_TABLES) & caught_up == set()
    assert {"fct_row_changes", "dim_row_versions", "fct_message_reconciliation"} <= caught_up
    # Part 3 is new to every format: none is left as it was.
    assert not {"NOTHING NEW", "UNCHANGED"} & set(runs.messages["part_3"].values())


@pytest.mark.parametrize("model", ["int_schema_changes", "fct_rejected_messages"])
def test_a_model_a_load_gave_no_row_reads_from_the_newest_load_it_read(runs: Runs, model: str) -> None:
    """A load may give these no row (part 3 holds no bad line, and most loads no DDL): step 5
    reads the staged messages loaded after step 4's (`cdc.loaded_through`), not all those since
    the last rejection or DDL."""
    assert runs.newest_message_load is not None
    assert f"loaded_at > timestamp_micros({runs.newest_message_load})" in runs.rerun_sql[model]


def test_a_later_build_leaves_the_seeds_as_they_are(runs: Runs) -> None:
    """The first build loads every seed; a later one leaves each as it is, its file,
    configuration and columns unchanged (macros/incremental/seed_materialization.sql). The
    marts of the builds in between equal the full refresh's (below), lookups included."""
    first, later = runs.seed_messages["part_1"], runs.seed_messages["part_3"]
    assert first and first.keys() == later.keys()
    assert all(re.fullmatch(r"INSERT [1-9][0-9]*", message) for message in first.values()), first
    assert set(later.values()) == {"UNCHANGED"}


def test_killed_build_then_rerun_gives_the_marts_of_an_uninterrupted_run(runs: Runs) -> None:
    finished = _finished_models(runs.killed_output)
    # Killed midway: every staged model had loaded part 2, the row-change fact and replicas had not.
    assert set(STAGED_TABLES) <= finished
    assert not finished & {"fct_row_changes", "dim_row_versions"}
    # The marts after the catch-up and later runs equal the full refresh (the test above); here the
    # killed run's part-2 files are in the facts exactly once.
    part_2 = {_uri(path) for path in runs.parts[1]}
    reconciled = Counter(row["file_path"] for row in runs.rerun["fct_message_reconciliation"])
    assert {path: reconciled[path] for path in part_2} == dict.fromkeys(part_2, 1)
    changes = Counter(
        (row["file_path"], row["line_number"], row["message_index"], row["row_index"])
        for row in runs.rerun["fct_row_changes"]
    )
    assert any(key[0] in part_2 for key in changes)
    assert max(changes.values()) == 1


def test_file_landed_after_a_run_is_picked_up_exactly_once(runs: Runs) -> None:
    for path in runs.parts[2]:
        lines = _landed_lines(path)
        staged = [row for row in runs.rerun[f"stg_{path.parent.name}__messages"] if row["file_path"] == _uri(path)]
        assert len({row["line_number"] for row in staged}) == lines, file_name(_uri(path))
        assert max(Counter((row["line_number"], row["message_index"]) for row in staged).values()) == 1
        reconciled = [row for row in runs.rerun["fct_message_reconciliation"] if row["file_path"] == _uri(path)]
        assert [row["landed_lines"] for row in reconciled] == [lines]


def test_same_file_landed_twice_gives_no_duplicate_row_changes(runs: Runs) -> None:
    original, copy = (_uri(path) for path in runs.redelivered)
    row_changes = runs.rerun["fct_row_changes"]
    # The copy was loaded (its lines reconcile) but every change in it is already in the fact.
    reconciled = {row["file_path"]: row for row in runs.rerun["fct_message_reconciliation"]}
    assert reconciled[copy]["row_change_messages"] == reconciled[original]["row_change_messages"] > 0
    assert not [row for row in row_changes if row["file_path"] == copy]
    assert len({row["change_id"] for row in row_changes}) == len(row_changes)
    from_original = [row for row in row_changes if row["file_path"] == original]
    assert len(from_original) >= reconciled[original]["row_change_messages"]


def test_data_files_say_their_loaded_at_range_so_that_earlier_loads_are_skipped(runs: Runs) -> None:
    """Every data file's statistics in the Delta log give its loaded_at range, and a staged
    table's files hold one load each: an incremental model's `loaded_at > <newest>` skips the
    files of earlier loads unread."""
    assert sorted(runs.loaded_at_files) == sorted(LOADED_AT_TABLES)
    for table, files in runs.loaded_at_files.items():
        assert files and None not in files, table
    for table in STAGED_TABLES:
        files = runs.loaded_at_files[table]
        assert all(low == high for low, high in files), table
        # Steps 1, 2 (before the kill) and 4 staged files; steps 3 and 5 found none.
        assert len({low for low, _ in files}) == 3, table


def test_the_facts_change_feed_holds_each_fact_once_as_an_insert(runs: Runs) -> None:
    """A reader following fct_row_changes' change data feed over the builds and runs of steps
    1 to 5 (a killed one among them) sees every fact once, inserted, and nothing else."""
    facts = sorted(row["change_id"] for row in runs.rerun["fct_row_changes"])
    assert {row["_change_type"] for row in runs.change_feed} == {"insert"}
    assert sorted(row["change_id"] for row in runs.change_feed) == facts


def _compiled_test(runs: Runs, prefix: str) -> str:
    (sql,) = [sql for name, sql in runs.after_part_3_tests.items() if name.startswith(prefix)]
    return sql


def test_a_build_tests_what_was_loaded_since_the_data_tests_last_passed(runs: Runs) -> None:
    # Step 1's data tests all passed; steps 2 and 3 ran no test: step 4 tests parts 2 and 3. It
    # reads the landed files modified since the oldest of those (parts interleave by time, as
    # files landed late do: part 1's newer files are read and left out by a join), naming none.
    reconcile = _compiled_test(runs, "assert_landed_lines_reconcile")
    oldest_untested_ms = min(path.stat().st_mtime_ns // 1_000_000 for path in runs.parts[1] + runs.parts[2])
    assert f"counts.landed_at >= timestamp_micros({oldest_untested_ms * 1000})" in reconcile
    assert not [path for part in runs.parts for path in part if _uri(path) in reconcile]
    newer_rows = re.compile(r"loaded_at > timestamp_micros\(\d+\)")
    row_checks = _compiled_test(runs, "row_checks_fct_row_changes")
    assert newer_rows.search(row_checks)
    assert newer_rows.search(_compiled_test(runs, "assert_row_change_messages_reach_the_fact"))
    # New rows must not repeat old ones: a key the new rows hold is counted over the whole model.
    assert "from (select change_id as key_1 from tested) as keys" in row_checks
    assert "left semi join (select change_id as key_1 from untested) as new_keys" in row_checks
