"""The benchmark's pure parts (tools/src/cdc_tools/bench), without dbt: the landing's segments,
schema discovery, the process-tree memory sampler, the report's arithmetic, and the floor,
hand-written and Avro containers' (fastavro) Spark jobs on the shared local SparkSession."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from cdc_tools.bench import avro_containers, report
from cdc_tools.bench.avro_containers import write_containers
from cdc_tools.bench.floor import floor_counts, parsed_messages
from cdc_tools.bench.handwritten import canal_row_changes
from cdc_tools.bench.landing import land, link_segment, repeat_folder, segment_end
from cdc_tools.bench.proctree import TreeSampler, descendants, lasting_bytes, parse_stat, snapshot
from cdc_tools.bench.run import summary_lines
from cdc_tools.bench.schemas import inline_template, schema_macros
from cdc_tools.bench.spark import print_result, read_result
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.writer import generate

REPO = Path(__file__).resolve().parents[2]
AVRO = ("dts_avro", "oms_avro")  # the formats whose records have one schema

# ------------------------------------------------------------------------------ landing


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory):
    return land(tmp_path_factory.mktemp("bench") / "segments", 2000, seed=3, max_file_bytes=64 * 1024)


def test_segments_cut_the_history_at_n_and_n_over_5_and_add_n_over_100(landing) -> None:
    small, rest, increment = (landing.segments[name] for name in ("small", "rest", "increment"))
    longest_statement = max(len(FORMATS) * 10, 1)  # lines one statement gives in all formats, at most
    assert 400 <= small.messages < 400 + longest_statement
    assert 2000 <= small.messages + rest.messages < 2000 + longest_statement
    assert 20 <= increment.messages < 20 + longest_statement
    for segment in (small, rest, increment):
        assert set(segment.formats) == set(FORMATS)
        # every format carries the same statements, hence the same row changes
        assert len({count.row_changes for count in segment.formats.values()}) == 1


def test_segments_are_the_generators_stream_cut_in_three(landing, tmp_path: Path) -> None:
    statements = sum(segment.statements for segment in landing.segments.values())
    counts = generate(tmp_path, statements, seed=3, max_file_bytes=64 * 1024)
    for name, count in counts.items():
        whole = b"".join(path.read_bytes() for path in count.files)
        cut = b"".join(
            path.read_bytes()
            for segment in ("small", "rest", "increment")
            for path in sorted((landing.out / segment / name).iterdir())
        )
        assert cut == whole
        assert sum(s.formats[name].messages for s in landing.segments.values()) == count.lines
        assert sum(s.formats[name].row_changes for s in landing.segments.values()) == count.row_changes
        # A restarted producer sent some statements again: their rows count as sent, not as facts.
        sent = sum(s.formats[name].sent_row_changes for s in landing.segments.values())
        assert sent > count.row_changes
    assert {"cdc_primary_keys": landing.primary_keys} == json.loads(
        (tmp_path / "_expected" / "dbt_vars.json").read_text()
    )


def test_segment_end_needs_n_of_at_least_500() -> None:
    assert segment_end("small", 1000, 0) == 200
    assert segment_end("rest", 1000, 203) == 1000
    assert segment_end("increment", 1000, 1004) == 1014
    with pytest.raises(ValueError):
        segment_end("small", 499, 0)


def test_link_segment_links_history_and_copies_the_increment(landing, tmp_path: Path) -> None:
    linked = link_segment(landing, "small", tmp_path)
    copied = link_segment(landing, "increment", tmp_path, copy=True)
    assert {p.parent.name for p in linked} == set(FORMATS)
    assert all(p.name.startswith("small-part-") for p in linked)
    source = landing.out / "small" / "canal_json" / "part-00000.jsonl"
    assert (tmp_path / "canal_json" / "small-part-00000.jsonl").stat().st_ino == source.stat().st_ino
    increment_source = landing.out / "increment" / "canal_json" / "part-00000.jsonl"
    increment_copy = tmp_path / "canal_json" / "increment-part-00000.jsonl"
    assert increment_copy in copied
    assert increment_copy.read_bytes() == increment_source.read_bytes()
    assert increment_copy.stat().st_ino != increment_source.stat().st_ino


def test_repeat_folder_places_each_file_once_per_copy(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.jsonl").write_text("1\n")
    (source / "b.jsonl").write_text("2\n")
    assert repeat_folder(source, tmp_path / "out", 3) == 6
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names[:2] == ["copy-000-a.jsonl", "copy-000-b.jsonl"] and names[-1] == "copy-002-b.jsonl"
    assert "".join(p.read_text() for p in sorted((tmp_path / "out").iterdir())) == "1\n2\n" * 3


# ------------------------------------------------------------------------------ schemas


def test_schema_macros_are_the_formats_message_schema_macros() -> None:
    assert schema_macros(REPO, "canal_json") == ["canal_json_message_schema"]
    assert schema_macros(REPO, "debezium_json") == ["debezium_json_message_schema"]
    assert schema_macros(REPO, "oms_avro") == ["oms_avro_message_schema"]
    # Its metadata fields are a piece of the message schema, not a schema.
    assert schema_macros(REPO, "debezium_flat_json") == ["debezium_flat_json_message_schema"]
    assert schema_macros(REPO, "no_such_format") == []


def test_inline_template_renders_every_macro_as_json() -> None:
    template = inline_template({"a": ["a_schema"], "b": ["b_one_schema", "b_two_schema"]})
    assert template == '{{ tojson({"a": [a_schema()], "b": [b_one_schema(), b_two_schema()]}) }}'


def test_job_results_round_trip_through_stdout(capsys) -> None:
    print("some log line")
    print_result({"work_seconds": 1.5})
    assert read_result(capsys.readouterr().out) == {"work_seconds": 1.5}
    with pytest.raises(ValueError):
        read_result("no result\n")


# ------------------------------------------------------------------------------- memory


def test_parse_stat_reads_past_a_command_name_with_spaces_and_parentheses() -> None:
    stat = "42 (a b) c) S 7 42 42 0 -1 4194304 100 0 0 0 250 30 5 6 20 0 1 0"
    assert parse_stat(stat).parent == 7
    assert parse_stat(stat).cpu_ticks == 280  # utime + stime, not the children's


def test_descendants_are_the_whole_subtree() -> None:
    parents = {1: 0, 2: 1, 3: 2, 4: 1, 5: 9}
    assert descendants(1, parents) == {1, 2, 3, 4}
    assert descendants(5, parents) == {5}


def test_a_snapshot_of_an_ended_process_is_empty() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    assert process.wait() == 0
    assert snapshot(process.pid) == ({}, {})


def test_a_process_counts_from_its_second_sample() -> None:
    # 7 is new: a fork of the JVM (3) that shows the JVM's pages until it execs.
    assert lasting_bytes({1: 10, 3: 6000, 7: 6000}, previous={1, 3}) == 6010
    assert lasting_bytes({1: 10, 3: 6000}, previous={1, 3, 7}) == 6010


def test_sampler_sees_a_childs_memory_and_cpu_time() -> None:
    # The sampled root is a process of the test's own, not pytest: other tests' builds run as
    # pytest's children meanwhile.
    child = (
        "import time; block = bytearray(300 * 1024 * 1024); end = time.process_time() + 1.0\n"
        "while time.process_time() < end: pass\n"
        "time.sleep(0.3)"
    )
    parent = (
        f"import subprocess, sys, time; time.sleep(0.3); subprocess.run([sys.executable, '-c', {child!r}], check=True)"
    )
    process = subprocess.Popen([sys.executable, "-c", parent])
    sampler = TreeSampler(root=process.pid, interval=0.05)
    sampler.start()
    assert process.wait() == 0
    sampler.stop()
    assert sampler.peak_bytes >= 300 * 1024 * 1024
    assert 0.9 <= sampler.cpu_seconds < 3.0


# ------------------------------------------------------------------------------- report

RUN_RESULTS = {
    "results": [
        {"unique_id": "model.p.base_canal_json__messages", "status": "success", "execution_time": 4.0},
        {"unique_id": "model.p.stg_canal_json__row_changes", "status": "success", "execution_time": 1.0},
        {"unique_id": "model.p.base_oms_avro__messages", "status": "success", "execution_time": 10.0},
        {"unique_id": "model.p.fct_row_changes", "status": "success", "execution_time": 8.0},
        {"unique_id": "test.p.not_null_x", "status": "pass", "execution_time": 0.5},
        {"unique_id": "unit_test.p.m.t", "status": "pass", "execution_time": 1.5},
    ],
    "elapsed_time": 21.25,
}


def test_build_summary_splits_node_time_and_the_rest() -> None:
    summary = report.build_summary(RUN_RESULTS, wall_seconds=60.0)
    assert summary["seconds_by_node_type"] == {"model": 23.0, "test": 0.5, "unit_test": 1.5}
    assert summary["run_seconds"] == 21.25
    assert summary["outside_run_seconds"] == 38.75
    assert list(summary["models"]) == [
        "base_oms_avro__messages",
        "fct_row_changes",
        "base_canal_json__messages",
        "stg_canal_json__row_changes",
    ]
    assert summary["statuses"] == ["pass", "success"]


def test_staging_rows_per_s_counts_each_formats_staging_models_only() -> None:
    models = report.build_summary(RUN_RESULTS, 60.0)["models"]
    rates = report.staging_rows_per_s(models, {"canal_json": 1000, "oms_avro": 1000, "dts_avro": 5})
    assert rates == {"canal_json": 200.0, "oms_avro": 100.0, "dts_avro": None}


STEPS = {
    "floor": {"seconds": 10.0, "cpu_seconds": 12.0, "messages": 1000, "peak_rss_mib": 900.0},
    "handwritten": {"seconds": 20.0, "cpu_seconds": 30.0, "messages": 500, "peak_rss_mib": 1000.0},
    "equivalent": {"seconds": 40.0, "cpu_seconds": 48.0, "messages": 1000, "peak_rss_mib": 1500.0},
    "full_build": {
        "seconds": 100.0,
        "cpu_seconds": 120.0,
        "messages": 1000,
        "peak_rss_mib": 2000.0,
        "nodes": 120,
        "models": {"base_canal_json__messages": 4.0, "stg_canal_json__row_changes": 1.0},
    },
    "incremental_build": {"seconds": 20.0, "cpu_seconds": 30.0, "messages": 1010, "peak_rss_mib": 1500.0},
    "small_history_full_build": {"seconds": 30.0, "cpu_seconds": 40.0, "messages": 200, "peak_rss_mib": 1200.0},
    "small_history_incremental_build": {"seconds": 16.0, "cpu_seconds": 20.0, "messages": 210, "peak_rss_mib": 1100.0},
    "avro_fastavro": {
        "seconds": 8.0,
        "cpu_seconds": 15.0,
        "records": 400,
        "peak_rss_mib": 700.0,
        "records_per_s": 50.0,
    },
    "avro_spark_avro": {
        "seconds": 2.0,
        "cpu_seconds": 3.0,
        "records": 400,
        "peak_rss_mib": 800.0,
        "records_per_s": 200.0,
    },
}


def test_ratios_compare_seconds_per_message() -> None:
    assert report.ratios(STEPS) == {
        "ratio_full_build_to_handwritten": 2.5,  # 0.1 s/message against 0.04
        "ratio_full_build_to_floor": 10.0,
        "ratio_full_build_to_equivalent": 2.5,
        "ratio_incremental_to_full": 0.2,
        "ratio_incremental_history_growth": 1.25,
        "ratio_spark_avro_to_fastavro": 0.25,
    }
    assert report.ratios(STEPS, "cpu_seconds")["ratio_full_build_to_handwritten"] == 2.0
    assert report.ratios(STEPS, "cpu_seconds")["ratio_full_build_to_equivalent"] == 2.5
    assert report.ratios(STEPS, "cpu_seconds")["ratio_spark_avro_to_fastavro"] == 0.2
    without_avro = {name: step for name, step in STEPS.items() if not name.startswith("avro_")}
    assert report.ratios(without_avro)["ratio_spark_avro_to_fastavro"] is None


def test_assemble_counts_the_history_and_keeps_every_step(landing) -> None:
    result = report.assemble(landing.segments, STEPS)
    small, rest = landing.segments["small"], landing.segments["rest"]
    assert result["messages"] == small.messages + rest.messages
    assert result["row_changes"] == small.row_changes + rest.row_changes
    assert result["formats"]["canal_json"]["messages"] == (
        small.formats["canal_json"].messages + rest.formats["canal_json"].messages
    )
    assert result["increment_messages"] == landing.segments["increment"].messages
    assert result["ratio_incremental_to_full"] == 0.2
    assert result["cpu_ratios"]["ratio_incremental_to_full"] == 0.25
    assert result["staging_rows_per_s"]["canal_json"] == round(result["formats"]["canal_json"]["row_changes"] / 5, 1)
    assert result["staging_rows_per_s"]["debezium_json"] is None  # no debezium model in STEPS
    assert result["peak_rss_mib"] == 2000.0
    assert result["steps"] is STEPS
    assert [goal["met"] for goal in result["goals"]] == [True, False, False, False, None, True, False, False]


def test_goals_are_judged_and_unmeasurable_ones_say_so() -> None:
    wall = {
        "ratio_full_build_to_handwritten": 4.5,
        "ratio_full_build_to_floor": 10.0,
        "ratio_incremental_to_full": 0.1,
        "ratio_incremental_history_growth": 1.5,
    }
    # Growth and the equivalent are judged on CPU seconds.
    cpu = {**wall, "ratio_incremental_history_growth": 1.05, "ratio_full_build_to_equivalent": 1.9}
    rates = {"canal_json": 200.0, "oms_avro": 140.0, "dts_avro": 150.0}
    goals = report.goals(wall, cpu, rates, 3000.0, 46)
    assert [g["met"] for g in goals] == [True, False, True, True, True, True, True, False]
    assert (goals[5]["value"], goals[7]["value"]) == (2.93, 46)
    assert report.goals(wall, cpu, {"canal_json": 200.0, "oms_avro": 90.0}, None, None)[4]["value"] == 0.45
    unmeasured = report.goals(wall, {**cpu, "ratio_full_build_to_equivalent": None}, {"canal_json": 200.0}, None, None)
    assert [unmeasured[i]["met"] for i in (4, 5, 6, 7)] == [None, None, None, None]


# ------------------------------------------------------------------------ Spark jobs

CANAL_LINES = [
    # one UPDATE message of two rows; `old` holds the changed columns only
    '{"data":[{"id":"1","name":"new","note":null},{"id":"2","name":"b","note":"x"}],'
    '"database":"shop","es":1700000000000,"id":5,"isDdl":false,"mysqlType":{"id":"int"},'
    '"old":[{"name":"old"},{"note":null}],"pkNames":["id","id"],"sql":"","sqlType":{"id":4},'
    '"table":"t","ts":1700000000100,"type":"UPDATE"}',
    # a batch of an INSERT and a DELETE
    '[{"data":[{"id":"3","name":"c","note":null}],"database":"shop","es":1,"id":6,"isDdl":false,'
    '"old":null,"pkNames":["id"],"table":"t","ts":2,"type":"INSERT"},'
    '{"data":[{"id":"2","name":"b","note":"x"}],"database":"shop","es":3,"id":7,"isDdl":false,'
    '"old":null,"pkNames":["id"],"table":"t","ts":4,"type":"DELETE"}]',
    '{"data":null,"database":"shop","es":5,"id":8,"isDdl":true,"sql":"DROP TABLE t","table":"t","type":"ERASE"}',
]


def test_avro_containers_hold_the_landed_records_as_the_project_reads_them(
    spark: SparkSession, landing, tmp_path: Path
) -> None:
    root, containers = tmp_path / "landing", tmp_path / "containers"
    link_segment(landing, "small", root)
    records = write_containers(root, containers, list(FORMATS), 64 * 1024)
    lines = {name: sum(path.read_bytes().count(b"\n") for path in (root / name).iterdir()) for name in AVRO}
    assert records == sum(lines.values()) and sorted(path.name for path in containers.iterdir()) == list(AVRO)
    for decoder in ("fastavro", "fastavro_records"):
        read = avro_containers.run(spark, decoder, containers)["formats"]
        assert {name: read[name]["records"] for name in read} == lines
        assert all(read[name]["text_chars"] > 0 for name in read) is (decoder == "fastavro")


def test_handwritten_job_rebuilds_before_images_and_skips_ddl(spark: SparkSession) -> None:
    lines = spark.createDataFrame([(line,) for line in CANAL_LINES], "value string")
    rows = [r.asDict() for r in canal_row_changes(lines).orderBy("message_id", "row_index").collect()]
    assert [(r["operation"], r["message_id"], r["row_index"]) for r in rows] == [
        ("UPDATE", 5, 0),
        ("UPDATE", 5, 1),
        ("INSERT", 6, 0),
        ("DELETE", 7, 0),
    ]
    assert rows[0]["before_image"] == {"id": "1", "name": "old", "note": None}
    assert rows[0]["after_image"] == {"id": "1", "name": "new", "note": None}
    assert rows[1]["before_image"] == {"id": "2", "name": "b", "note": None}
    assert rows[2]["before_image"] is None and rows[2]["after_image"] == {"id": "3", "name": "c", "note": None}
    assert rows[3]["before_image"] == {"id": "2", "name": "b", "note": "x"} and rows[3]["after_image"] is None
    assert rows[0]["primary_key_columns"] == ["id"]


def test_floor_counts_messages_of_objects_and_batches(spark: SparkSession) -> None:
    schema = "struct<`id`: bigint, `type`: string, `data`: array<map<string, variant>>, `_corrupt_record`: string>"
    values = ['{"id":1,"type":"INSERT"}', '[{"id":2},{"id":3}]', "not json", "[1,", "  [{}]"]
    lines = spark.createDataFrame([(v,) for v in values], "value string")
    counted = lines.select(parsed_messages(F.col("value"), schema).alias("n")).collect()
    assert [row.n for row in counted] == [1, 2, 1, 0, 1]  # "not json" parses to a corrupt record
    assert floor_counts(lines, [schema, "struct<`id`: bigint>"]) == {
        "lines": 5,
        "messages_0": 5,
        "messages_1": 5,
    }


def test_summary_names_every_step_ratio_and_goal(landing) -> None:
    lines = summary_lines(report.assemble(landing.segments, STEPS))
    text = "\n".join(lines)
    for name in STEPS:
        assert f"  {name} " in text
    assert "ratio_incremental_history_growth   1.25 (CPU: 1.5)" in text
    assert "ratio_spark_avro_to_fastavro       0.25 (CPU: 0.2)" in text
    assert "50.0 records/s" in text
    assert "goal ratio_full_build_to_handwritten <= 5: 2.5 (met)" in text
    assert "goal ratio_full_build_to_floor <= 8: 10.0 (NOT met)" in text
