"""Kafka as the landing (docs/kafka.md): the generator's stream in each format whose way from
Kafka differs, produced into a broker of the test's own (cdc_tools.kafka), a topic per format
(an Avro format's records as binary Avro, Debezium's in Confluent's wire format with a schema
registry of the test's own), its first two producer sessions before a build and the other two,
with a Debezium change keyed by its record key and its tombstone, before a second, incremental
one (builds of the facts, FACTS_BUILD), gives the facts the stream expects, as its landed files
do (test_format_equivalence). What a run read of a topic partition is one landed file, and every
record, the tombstone too, is accounted for in the reconciliation."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_tools.generator.writer import EXPECTED_FOLDER, REDELIVERED_CHANGES_FILE, generate
from cdc_tools.kafka import Broker, avro_values, landed_lines, produce
from cdc_tools.registry import project_formats, reading_only
from cdc_tools.schema_registry import SchemaRegistry
from support.compared_facts import compared_facts, multiset_difference
from support.dbt_harness import FACTS_BUILD, REPO, Build, profiles_dir
from support.dbt_worker import DbtWorker

REGISTRY = project_formats(REPO)
# The formats whose way from Kafka differs, and the builds read only these: JSON values (canal's,
# whose copies carry no position), Debezium's keyed by the record key, in JSON and in Avro through
# the registry, and the binary Avro values of DTS and OMS (an OMS shard set spans records). Every
# other format's values land as canal's do, and what its SQL makes of them after the landing is
# tested from its files (test_format_equivalence).
FORMAT_NAMES = ("canal_json", "debezium_json", "debezium_avro", "dts_avro", "oms_avro")
STATEMENTS = 300
SEED = 20240101
# The generator's parts are its producer sessions (each after a restart); each build reads two.
RUNS = (("part-00000", "part-00001"), ("part-00002", "part-00003"))
# A Debezium change of a table no DDL and no var names a key for, its key in the record's key
# only, produced after the stream, then a tombstone of that key (a null value, which Debezium
# sends after a delete): skipped, and counted. As JSON without schemas, and in Avro.
KEYED_CHANGE = json.loads((Path(__file__).parent / "data" / "debezium_keyed_change.json").read_text())
KEYED_FORMATS = ("debezium_json", "debezium_avro")
# Where a change carries no source coordinates, its landed file tells a restart's copy of it from
# a new change (docs/identity-and-order.md): from Kafka, a run's read is the file, and the copies
# of the generator's restarts are read in the same run as their originals, with other changes of
# their rows between. Counted as changes again: none is lost, none is made up.
COPIES_COUNTED_AGAIN = {"canal_json": "canal's own messages carry no position (its TiCDC messages do)"}


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kafka") / "landing"
    generate(root, STATEMENTS, SEED, FORMAT_NAMES)
    for name in FORMAT_NAMES:
        assert [path.stem for path in sorted((root / name).iterdir())] == [part for run in RUNS for part in run]
    return root


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    broker = Broker(tmp_path_factory.mktemp("broker"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def schema_registry() -> Iterator[SchemaRegistry]:
    with SchemaRegistry() as registry:
        yield registry


def _records(landing: Path, name: str, run: tuple[str, ...]) -> list[bytes]:
    return [line for part in run for line in landed_lines(landing / name / f"{part}.jsonl")]


def _values(landing: Path, name: str, run: tuple[str, ...], registry: SchemaRegistry) -> list[bytes]:
    """A run's records as the format's producer sends them."""
    lines = _records(landing, name, run)
    if not REGISTRY[name].containers:
        return lines
    return avro_values(name, lines, registry.url)


def _keyed_change(name: str, registry: SchemaRegistry) -> tuple[bytes, bytes]:
    """The keyed change's key and value as the format's producer sends them: JSON without
    schemas, or Avro."""
    key, value = KEYED_CHANGE["key"], KEYED_CHANGE["value"]
    if name == "debezium_json":
        return json.dumps(key["payload"]).encode(), json.dumps(value["payload"]).encode()
    [avro_key] = avro_values(name, [json.dumps(key).encode()], registry.url, subject=f"{name}-key")
    [avro_value] = avro_values(name, [json.dumps(value).encode()], registry.url)
    return avro_key, avro_value


@pytest.fixture(scope="module")
def builds(
    landing: Path,
    broker: Broker,
    schema_registry: SchemaRegistry,
    tmp_path_factory: pytest.TempPathFactory,
    shared_worker: DbtWorker,
) -> list[Build]:
    root = tmp_path_factory.mktemp("kafka_builds")
    profiles = profiles_dir(root)
    dbt_vars = {
        "landing_source": "kafka",
        "kafka_bootstrap_servers": broker.bootstrap_servers,
        "kafka_schema_registry_url": schema_registry.url,
        **reading_only(REPO, *FORMAT_NAMES),
    }
    builds = []
    for index, run in enumerate(RUNS):
        for name in FORMAT_NAMES:
            produce(broker.bootstrap_servers, name, _values(landing, name, run, schema_registry))
        if index == len(RUNS) - 1:
            for name in KEYED_FORMATS:
                key, value = _keyed_change(name, schema_registry)
                produce(broker.bootstrap_servers, name, [value, b""], keys=[key, key])
        build = Build(
            f"kafka run {index + 1}",
            root / f"run{index + 1}",
            FACTS_BUILD,
            landing,
            dbt_vars=dbt_vars,
            schema="kafka",
            worker=shared_worker,
        )
        build.start(profiles)
        build.wait()
        builds.append(build)
    return builds


@pytest.fixture(params=FORMAT_NAMES)
def format_name(request: pytest.FixtureRequest) -> str:
    return request.param


def test_both_runs_succeed(builds: list[Build]) -> None:
    for build in builds:
        assert {uid: s for uid, s in build.run_results().items() if s not in {"success", "pass"}} == {}


def _row_changes(builds: list[Build], landing: Path, format_name: str) -> tuple[Counter, Counter]:
    """The expected row changes of a format, and those its facts hold of the stream (not of the
    records this test keys by Kafka's key)."""
    facts = [r for r in builds[-1].marts()["fct_row_changes"] if r["table_name"] != "keyed_by_kafka"]
    expected, actual = compared_facts(landing, {"fct_row_changes": facts}, format_name, "row_changes")
    return Counter(expected), Counter(actual)


def test_a_debezium_key_comes_from_the_record_key(builds: list[Build]) -> None:
    """From a JSON key, and from an Avro key in Confluent's wire format."""
    facts = builds[-1].marts()["fct_row_changes"]
    keyed = [
        (r["source_format"], r["operation"], r["primary_key"]) for r in facts if r["table_name"] == "keyed_by_kafka"
    ]
    assert sorted(keyed) == [(name, "INSERT", '{"id":"7"}') for name in sorted(KEYED_FORMATS)]


def test_row_changes_equal_the_expected_row_changes(builds: list[Build], landing: Path, format_name: str) -> None:
    expected, actual = _row_changes(builds, landing, format_name)
    assert expected.total() > 450
    if format_name in COPIES_COUNTED_AGAIN:
        assert expected - actual == Counter()
        # A copy says what its original says; only its emit time (the restart's) is its own.
        assert {copy[:-1] for copy in actual - expected} <= {change[:-1] for change in expected}
        assert actual != expected
    else:
        assert multiset_difference(list(expected.elements()), list(actual.elements())) == []


def test_schema_changes_equal_the_expected_schema_changes(builds: list[Build], landing: Path, format_name: str) -> None:
    expected, actual = compared_facts(landing, builds[-1].marts(), format_name, "schema_changes")
    assert multiset_difference(expected, actual) == []


def test_each_run_lands_what_is_new_as_one_file(builds: list[Build], landing: Path, format_name: str) -> None:
    """A run reads from where the last one stopped: its read of the topic's partition is one
    landed file (kafka:<topic>/0/<first offset>) holding every record it read."""
    sizes = [len(_records(landing, format_name, run)) for run in RUNS]
    sizes[-1] += 2 * (format_name in KEYED_FORMATS)
    reads = sorted(
        (
            r
            for r in builds[-1].query(f"select * from {builds[-1].schema}.base_kafka__reads")
            if r["source_format"] == format_name
        ),
        key=lambda r: r["first_offset"],
    )
    assert [(r["topic"], r["partition"], r["first_offset"], r["last_offset"], r["records"]) for r in reads] == [
        (format_name, 0, 0, sizes[0] - 1, sizes[0]),
        (format_name, 0, sizes[0], sum(sizes) - 1, sizes[1]),
    ]
    files = [r for r in builds[-1].marts()["fct_landed_files"] if r["source_format"] == format_name]
    assert sorted((r["file_path"], r["landed_lines"], r["outcome"]) for r in files) == sorted(
        [(f"kafka:{format_name}/0/0", sizes[0], "loaded"), (f"kafka:{format_name}/0/{sizes[0]}", sizes[1], "loaded")]
    )


def test_every_record_is_accounted_for(builds: list[Build], landing: Path, format_name: str) -> None:
    """Nothing rejected; every record a change, a skipped message (the tombstone) or a restart's
    copy of a change, counted as such."""
    marts = builds[-1].marts()
    assert [r for r in marts["fct_rejected_messages"] if r["source_format"] == format_name] == []
    reconciliation = [r for r in marts["fct_message_reconciliation"] if r["source_format"] == format_name]
    for counts in reconciliation:
        assert counts["rejected_messages"] == 0
        assert counts["messages"] == (
            counts["row_change_messages"] + counts["schema_change_messages"] + counts["skipped_messages"]
        )
    if format_name in KEYED_FORMATS:
        assert sum(counts["skipped_messages"] for counts in reconciliation) == 1
    redelivered = json.loads((landing / EXPECTED_FOLDER / REDELIVERED_CHANGES_FILE).read_text())[format_name]
    expected, actual = _row_changes(builds, landing, format_name)
    counted_again = (actual - expected).total()
    assert sum(counts["redelivered_changes"] for counts in reconciliation) + counted_again == redelivered > 0
