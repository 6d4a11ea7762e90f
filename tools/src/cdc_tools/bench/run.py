"""`make bench N=<messages>`: the eight steps of the benchmark, each a child process of this one,
timed by wall clock (JVM start included) with the process tree's peak resident memory.

    1. land     the generator writes the stream's segments (see landing.py); not timed
    2. floor    Spark reads the history and parses it with the staging schemas (floor.py)
    3. handwritten  the canal-only job (handwritten.py) over the history's canal files, linked
                as many times as it takes to read about N messages
    4. equivalent  the project's work by hand over the history, every format (equivalent.py)
    5. full_build   `dbt build` of the whole project over the history, from an empty warehouse
    6. incremental_build  `dbt build` again after the increment (N/100 messages) lands
    7. small_history_incremental_build  the same increment on a history of N/5 messages
       (built first, from empty: `small_history_full_build`, reported but not a step)
    8. avro_containers  the landed DTS and OMS records (the history and its increment) as binary
       container files, read by each decoder (avro_containers.py): fastavro as the project, and spark-avro

Writes the report (see report.py) as JSON and prints a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cdc_tools.bench import report
from cdc_tools.bench.avro_containers import DECODERS, write_containers
from cdc_tools.bench.landing import Landing, land, landing_bytes, link_segment, repeat_folder
from cdc_tools.bench.proctree import sampled_tree
from cdc_tools.bench.schemas import render_schemas
from cdc_tools.bench.spark import read_result
from cdc_tools.generator.cli import parse_formats, parse_size
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.writer import DEFAULT_FILE_BYTES

MIB = 1024 * 1024
DEFAULT_MESSAGES = 1_000_000
# The profile's default: at N = 1,000,000 the build is no slower with 5g than with 8g, and peaks
# lower (docs/performance-history.md).
DEFAULT_DRIVER_MEMORY = "5g"
SCHEMA = "cdc"


@dataclass
class Timed:
    seconds: float
    cpu_seconds: float
    peak_rss_mib: float
    stdout: str

    def fields(self) -> dict[str, float]:
        return {"seconds": self.seconds, "cpu_seconds": self.cpu_seconds, "peak_rss_mib": self.peak_rss_mib}


def run_timed(name: str, command: list[str], cwd: Path, env: dict[str, str], logs: Path) -> Timed:
    """Runs `command`, its output to logs/<name>.log; fails with the log's tail on an error."""
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{name}.log"
    print(f"[bench] {name}: {' '.join(command[:3])} ...", file=sys.stderr, flush=True)
    with log.open("w") as out, sampled_tree() as sampler:
        started = time.perf_counter()
        code = subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
        seconds = time.perf_counter() - started
    text = log.read_text()
    if code.returncode != 0:
        raise RuntimeError(f"{name} exited {code.returncode}; {log}:\n{text[-6000:]}")
    timed = Timed(round(seconds, 3), round(sampler.cpu_seconds, 1), round(sampler.peak_bytes / MIB, 1), text)
    print(f"[bench] {name}: {timed.seconds:.1f} s, {timed.cpu_seconds:.1f} CPU s", file=sys.stderr, flush=True)
    return timed


class Bench:
    """The work folder's layout and the environment every child process gets."""

    def __init__(self, project_dir: Path, work: Path, driver_memory: str, unit_tests: bool) -> None:
        self.project_dir = project_dir
        self.work = work
        self.driver_memory = driver_memory
        self.unit_tests = unit_tests
        self.python = Path(sys.executable)
        self.dbt = self.python.with_name("dbt")
        self.logs = work / "logs"
        self.profiles = work / "profiles"

    def env(self, spark_dir: Path) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"CDC_LANDING_ROOT", "DBT_PROFILES_DIR", "DBT_TARGET_PATH", "DBT_LOG_PATH"}
        }
        env.update(
            DBT_TARGET="local",
            DBT_PROFILES_DIR=str(self.profiles),
            CDC_SCHEMA=SCHEMA,
            CDC_SPARK_DIR=str(spark_dir),
            CDC_SPARK_DRIVER_MEMORY=self.driver_memory,
            # Python workers (mapInArrow) need this venv's packages, not `python3` from PATH.
            PYSPARK_PYTHON=str(self.python),
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            DBT_USE_COLORS="false",
        )
        return env

    def prepare(self) -> None:
        if self.work.exists():
            shutil.rmtree(self.work)
        self.profiles.mkdir(parents=True)
        shutil.copy(self.project_dir / "profiles.yml", self.profiles / "profiles.yml")

    def python_job(self, name: str, module: str, *args: str) -> tuple[Timed, dict[str, Any]]:
        command = [str(self.python), "-m", module, *args, "--driver-memory", self.driver_memory]
        timed = run_timed(name, command, self.work, self.env(self.work / f"spark-{name}"), self.logs)
        return timed, read_result(timed.stdout)

    def dbt_build(self, name: str, build: str, landing: Landing, root: Path) -> tuple[Timed, dict[str, Any]]:
        """`dbt build` over `root`, in the Spark dir and target path of `build` (kept between
        the builds of one history, so the second one finds the first one's tables)."""
        target = self.work / f"dbt-{build}"
        dbt_vars = {"landing_root": str(root), "cdc_primary_keys": landing.primary_keys}
        command = [
            str(self.dbt),
            "build",
            "--target-path",
            str(target / "target"),
            "--log-path",
            str(target / "logs"),
            "--vars",
            json.dumps(dbt_vars),
        ]
        if self.unit_tests:  # everything; by default, selectors.yml's production build
            command += ["--select", "fqn:*"]
        timed = run_timed(name, command, self.project_dir, self.env(target / "spark"), self.logs)
        run_results = json.loads((target / "target" / "run_results.json").read_text())
        return timed, report.build_summary(run_results, timed.seconds)


def git_commit(project_dir: Path) -> str | None:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=project_dir, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or None


def build_step(
    timed: Timed, summary: dict[str, Any], messages: int, row_changes: int, new_messages: int, new_row_changes: int
) -> dict[str, Any]:
    return {
        **timed.fields(),
        "messages": messages,
        "row_changes": row_changes,
        "new_messages": new_messages,
        "new_row_changes": new_row_changes,
        "new_rows_per_s": report.per_second(new_row_changes, timed.seconds),
        **summary,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    bench = Bench(args.project_dir.resolve(), args.work_dir.resolve(), args.driver_memory, args.unit_tests)
    bench.prepare()
    work = bench.work
    steps: dict[str, Any] = {}

    # 1. Landing (not timed as a step; its time is reported).
    started = time.perf_counter()
    landing = land(work / "segments", args.messages, args.seed, args.formats, args.file_size)
    full_root, small_root = work / "landing-full", work / "landing-small"
    for segment in ("small", "rest"):
        link_segment(landing, segment, full_root)
    link_segment(landing, "small", small_root)
    small, rest, increment = (landing.segments[name] for name in ("small", "rest", "increment"))
    messages = small.messages + rest.messages
    row_changes = small.row_changes + rest.row_changes
    history_bytes = landing_bytes(full_root)
    steps["land"] = {
        "seconds": round(time.perf_counter() - started, 3),
        "statements": small.statements + rest.statements + increment.statements,
    }

    # 2. Floor.
    schemas = render_schemas(
        bench.dbt, bench.project_dir, args.formats, bench.env(work / "spark-schemas"), work / "schemas"
    )
    schemas_file = work / "schemas.json"
    schemas_file.write_text(json.dumps(schemas, indent=2))
    timed, result = bench.python_job("floor", "cdc_tools.bench.floor", str(full_root), str(schemas_file))
    floor_messages = sum(f["lines"] for f in result["formats"].values())
    steps["floor"] = {
        **timed.fields(),
        "messages": floor_messages,
        "messages_per_s": report.per_second(floor_messages, timed.seconds),
        "mib_per_s": report.per_second(history_bytes / MIB, timed.seconds),
        "unparsed_formats": sorted(name for name, f in result["formats"].items() if not f["schemas"]),
        **result,
    }

    # 3. Hand-written canal job, over about N canal messages.
    canal = report.CANAL
    canal_lines = small.formats[canal].messages + rest.formats[canal].messages
    copies = max(1, round(messages / canal_lines))
    repeat_folder(full_root / canal, work / "handwritten-input", copies)
    timed, result = bench.python_job(
        "handwritten",
        "cdc_tools.bench.handwritten",
        str(work / "handwritten-input"),
        str(work / "handwritten-output"),
    )
    # The job keeps redelivered statements' rows too.
    expected_rows = copies * (small.formats[canal].sent_row_changes + rest.formats[canal].sent_row_changes)
    if result["row_changes"] != expected_rows:
        raise RuntimeError(f"the hand-written job wrote {result['row_changes']} rows, not {expected_rows}")
    steps["handwritten"] = {
        **timed.fields(),
        "messages": copies * canal_lines,
        "copies_of_canal_history": copies,
        "rows_per_s": report.per_second(result["row_changes"], timed.seconds),
        **result,
    }

    # 4. The equivalent job, over the history.
    jars = str(bench.project_dir / "jvm" / "jars" / "spark-4.0" / "*")
    keys_file = work / "primary_keys.json"
    keys_file.write_text(json.dumps(landing.primary_keys))
    timed, result = bench.python_job(
        "equivalent",
        "cdc_tools.bench.equivalent",
        str(full_root),
        str(work / "equivalent-warehouse"),
        str(keys_file),
        "--jars",
        jars,
    )
    if result["row_changes"] != row_changes:
        raise RuntimeError(f"the equivalent job kept {result['row_changes']} row changes, not {row_changes}")
    steps["equivalent"] = {
        **timed.fields(),
        "messages": messages,
        "messages_per_s": report.per_second(messages, timed.seconds),
        "mib_per_s": report.per_second(history_bytes / MIB, timed.seconds),
        "rows_per_s": report.per_second(row_changes, timed.seconds),
        **result,
    }

    # 5 and 6. The whole history from empty, then the increment on top.
    timed, summary = bench.dbt_build("full_build", "full", landing, full_root)
    steps["full_build"] = build_step(timed, summary, messages, row_changes, messages, row_changes)
    steps["full_build"]["rows_per_s"] = report.per_second(row_changes, timed.seconds)
    steps["full_build"]["mib_per_s"] = report.per_second(history_bytes / MIB, timed.seconds)
    link_segment(landing, "increment", full_root, copy=True)
    timed, summary = bench.dbt_build("incremental_build", "full", landing, full_root)
    steps["incremental_build"] = build_step(
        timed,
        summary,
        messages + increment.messages,
        row_changes + increment.row_changes,
        increment.messages,
        increment.row_changes,
    )

    # 7. The same increment on a history five times smaller.
    timed, summary = bench.dbt_build("small_history_full_build", "small", landing, small_root)
    steps["small_history_full_build"] = build_step(
        timed, summary, small.messages, small.row_changes, small.messages, small.row_changes
    )
    link_segment(landing, "increment", small_root, copy=True)
    timed, summary = bench.dbt_build("small_history_incremental_build", "small", landing, small_root)
    steps["small_history_incremental_build"] = build_step(
        timed,
        summary,
        small.messages + increment.messages,
        small.row_changes + increment.row_changes,
        increment.messages,
        increment.row_changes,
    )

    # 8. The Avro formats' history as binary containers, read by each decoder.
    containers_root = work / "avro-containers"
    records = write_containers(full_root, containers_root, args.formats, args.file_size)
    for decoder in DECODERS if records else ():
        timed, result = bench.python_job(
            f"avro_{decoder}", "cdc_tools.bench.avro_containers", decoder, str(containers_root), "--jars", jars
        )
        read = sum(f["records"] for f in result["formats"].values())
        if read != records:
            raise RuntimeError(f"{decoder} read {read} Avro records, not {records}")
        steps[f"avro_{decoder}"] = {
            **timed.fields(),
            "records": records,
            "records_per_s": report.per_second(records, timed.seconds),
            **result,
        }

    shutil.rmtree(work / "handwritten-output", ignore_errors=True)
    return {
        "messages_requested": args.messages,
        **report.assemble(landing.segments, steps),
        "driver_memory": args.driver_memory,
        "unit_tests_in_builds": args.unit_tests,
        "cpus": os.cpu_count(),
        "commit": git_commit(bench.project_dir),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def summary_lines(result: dict[str, Any]) -> list[str]:
    lines = [f"messages {result['messages']}, row changes {result['row_changes']}"]
    for name, step in result["steps"].items():
        rates = [
            (key, step[key])
            for key in ("messages_per_s", "mib_per_s", "rows_per_s", "new_rows_per_s", "records_per_s")
            if key in step
        ]
        extra = "".join(f", {value} {key.replace('_per_s', '/s').replace('_', ' ')}" for key, value in rates)
        memory = f", peak {step['peak_rss_mib']} MiB" if "peak_rss_mib" in step else ""
        cpu = f", {step['cpu_seconds']} CPU s" if "cpu_seconds" in step else ""
        lines.append(f"  {name:34} {step['seconds']:9.1f} s{cpu}{extra}{memory}")
    for key in (
        "ratio_full_build_to_handwritten",
        "ratio_full_build_to_floor",
        "ratio_full_build_to_equivalent",
        "ratio_incremental_to_full",
        "ratio_incremental_history_growth",
        "ratio_spark_avro_to_fastavro",
    ):
        lines.append(f"  {key:34} {result[key]} (CPU: {result['cpu_ratios'][key]})")
    for goal in result["goals"]:
        verdict = {True: "met", False: "NOT met", None: "not measured"}[goal["met"]]
        lines.append(f"  goal {goal['goal']}: {goal['value']} ({verdict})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cdc_tools.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=DEFAULT_MESSAGES,
        help=f"N: landed lines of the history, across formats (default {DEFAULT_MESSAGES})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--formats", type=parse_formats, default=list(FORMATS))
    parser.add_argument("--file-size", type=parse_size, default=DEFAULT_FILE_BYTES)
    parser.add_argument("--driver-memory", default=os.environ.get("CDC_SPARK_DRIVER_MEMORY", DEFAULT_DRIVER_MEMORY))
    parser.add_argument("--project-dir", type=Path, default=Path.cwd())
    parser.add_argument("--work-dir", type=Path, default=Path("target/bench-work"))
    parser.add_argument("--output", type=Path, default=Path("target/bench.json"))
    parser.add_argument(
        "--unit-tests",
        action="store_true",
        help="run dbt unit tests and the seeds' tests in every build too (by default builds leave "
        "them out, as production builds do: they test the project, not the data)",
    )
    args = parser.parse_args(argv)
    if report.CANAL not in args.formats:
        parser.error("the hand-written baseline needs canal_json among the formats")
    result = run(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print("\n".join(summary_lines(result)))
    print(f"written to {args.output}")
    return 0
