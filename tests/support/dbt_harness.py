"""Runs dbt for the end-to-end test modules, and reads the tables it wrote.

How it runs, and why:
- Each build is a dbt invocation in a worker process (support.dbt_worker): its own target path
  and log path under pytest's tmp dir, a copy of profiles.yml as its profile, and a
  Spark dir (CDC_SPARK_DIR: warehouse + Derby metastore) of its own, or the one of a worker that
  builds share (`shared_worker`: the modules of a pytest process), which keeps its JVM warm
  between them. Nothing under the repo's .spark/ is touched.
- Builds start in the background (`Build.start`) and are awaited by whoever needs them
  (`Build.wait`, `Build.marts`); a worker runs its builds in the order they started.
- Tables are read once dbt is done, by the worker that ran it (embedded Derby admits one JVM at
  a time); timestamps cross as unix microseconds (no time-zone guessing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from cdc_tools.producers.postgres import free_port
from support.dbt_worker import DbtWorker

REPO = Path(__file__).resolve().parents[2]
# The dbt of the venv running pytest (.venv, or .venv-spark35 for `make test-spark35`), else the repo's.
DBT = Path(sys.executable).with_name("dbt")
if not DBT.exists():
    DBT = REPO / ".venv" / "bin" / "dbt"
SCHEMA = "cdc"
# The facts and the outcomes, then the row versions and the replicas, which follow from the facts.
FACTS_MARTS = (
    "fct_row_changes",
    "fct_schema_changes",
    "fct_rejected_messages",
    "fct_message_reconciliation",
    "fct_landed_files",
    "dim_keyless_tables",
)
MARTS = (*FACTS_MARTS, "dim_row_versions", "dim_current_rows", "dim_replica_tables", "dim_replica_columns")
DBT_TIMEOUT_S = 1800
# The heap of a build's JVM (a worker's first build decides it) and of the test Thrift server.
DRIVER_MEMORY = "3g"
# A build of the landed data as a user runs it: selectors.yml's default leaves out the tests that
# do not read the data, dbt's unit tests and the seeds' data tests (`make test-dbt-unit` runs
# them on Spark 4, the equivalence test on Spark 3.5).
DATA_BUILD = ["build"]
# The same up to FACTS_MARTS (selectors.yml's `facts`): for the tests of how messages land, which
# read no more. The row versions and replicas follow from the facts however the messages came.
# A later build's data tests then read every row: only a build that ran every data test lets the
# next read only what is new (data_tests_scope.sql).
FACTS_BUILD = [*DATA_BUILD, "--selector", "facts"]
# The seeds and models without their tests, for a build whose data tests the next build on the
# same warehouse runs: those then test all this one loaded too (data_tests_scope.sql). With an
# --exclude, dbt leaves selectors.yml's default aside: dbt's unit tests are left out by name.
UNTESTED_BUILD = [*DATA_BUILD, "--exclude", "test_type:data", "test_type:unit"]

# Builds with Spark's ANSI SQL mode on (the profile's ansi_mode), as Spark 4 and Databricks SQL
# warehouses run by default: bad input must still be rejected with a reason, never fail a query.
# A worker's JVM keeps the mode its first build started it with.
ANSI_MODE = {"CDC_SPARK_ANSI": "true"}

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def profiles_dir(root: Path) -> Path:
    """A folder holding a copy of the project's profiles.yml."""
    folder = root / "profiles"
    folder.mkdir()
    shutil.copy(REPO / "profiles.yml", folder / "profiles.yml")
    return folder


@pytest.fixture(scope="session")
def shared_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DbtWorker]:
    """One worker, one warehouse, for the builds of every module of a pytest process that
    share it, each module's builds in schemas of their own: a JVM's first build costs a third
    more than a later one (class loading, JIT compilation). Killed (a crash the incremental
    module makes), it starts again for the next build."""
    worker = DbtWorker(tmp_path_factory.mktemp("shared") / "spark")
    yield worker
    worker.close()


# ----------------------------------------------------------------------------- harness


@dataclass
class Build:
    """One dbt invocation, started in the background in a worker process."""

    name: str
    root: Path
    args: list[str]
    landing_root: Path = REPO / "samples" / "landing"  # the project has no default
    dbt_vars: dict[str, Any] = field(default_factory=dict)  # besides landing_root
    target: str = "local"
    schema: str = SCHEMA
    env: dict[str, str] = field(default_factory=dict)  # besides the harness's own
    # dbt commands run one after another once `args` succeeded, e.g. a run-operation.
    followups: list[list[str]] = field(default_factory=list)
    # Called once `args` and the follow-ups succeeded, e.g. to stop the server the build used.
    after: Callable[[], None] | None = None
    # A worker other builds share (their Spark dir, their JVM); default: one of its own in root/spark.
    worker: DbtWorker | None = None
    check: bool = True  # a failure of `args` fails the test
    succeeded: bool | None = None
    _worker: DbtWorker = field(init=False, repr=False)
    _reader: DbtWorker | None = field(default=None, repr=False)  # another target's warehouse, read
    _request: int | None = field(default=None, repr=False)
    _profiles_dir: Path | None = field(default=None, repr=False)
    _marts: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._worker = self.worker or DbtWorker(self.root / "spark")

    @property
    def spark_dir(self) -> Path:
        return self._worker.spark_dir

    @property
    def target_dir(self) -> Path:
        return self.root / "target"

    @property
    def output_file(self) -> Path:
        return self.root / "dbt_output.txt"

    def start(self, profiles_dir: Path) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.output_file.write_text("")
        self._profiles_dir = profiles_dir
        self._request = self._worker.invoke(self._command(self.args), self._env(), self.output_file, self.target_dir)

    def _env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"CDC_LANDING_ROOT", "DBT_PROFILES_DIR", "DBT_TARGET_PATH", "DBT_LOG_PATH"}
        }
        env.update(
            DBT_TARGET=self.target,
            CDC_SCHEMA=self.schema,
            CDC_SPARK_DIR=str(self.spark_dir),
            CDC_SPARK_DRIVER_MEMORY=DRIVER_MEMORY,
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            DBT_USE_COLORS="false",
            **self.env,
        )
        return env

    def _command(self, args: list[str]) -> list[str]:
        """`dbt <args>` in the build's folders; `--vars` in `args` add to the build's vars."""
        assert self._profiles_dir is not None
        dbt_vars = dict(self.dbt_vars)
        if "--vars" in args:
            at = args.index("--vars")
            dbt_vars.update(json.loads(args[at + 1]))
            args = args[:at] + args[at + 2 :]
        cmd = [
            *args,
            "--profiles-dir",
            str(self._profiles_dir),
            "--target-path",
            str(self.target_dir),
            "--log-path",
            str(self.root / "logs"),
        ]
        return [*cmd, "--vars", json.dumps({"landing_root": str(self.landing_root), **dbt_vars})]

    def _failure(self, what: str) -> str:
        return f"{self.name}: {what}:\n{self.output_file.read_text()[-8000:]}\n{self._worker.log_tail()}"

    def finished(self) -> bool:
        """Whether `args` has ended (or its worker died), without waiting."""
        assert self._worker.proc is not None and self._request is not None
        return (
            self.succeeded is not None
            or self._worker.answer(self._request, timeout_s=0) is not None
            or self._worker.proc.poll() is not None
        )

    def wait(self) -> None:
        """Waits for `args`, then runs the follow-ups; fails the test on any failure."""
        assert self._request is not None
        if self.succeeded is not None:
            return
        answer = self._worker.answer(self._request, DBT_TIMEOUT_S)
        if answer is None:
            self._worker.kill()
            pytest.fail(self._failure(f"dbt ended or did not finish in {DBT_TIMEOUT_S}s"))
        assert "error" not in answer, answer["error"]
        self.succeeded = answer["success"]
        if not self.succeeded and self.check:
            pytest.fail(self._failure(f"`dbt {' '.join(self.args)}` failed ({answer['exception']})"))
        if self.succeeded:
            for args in self.followups:
                request = self._worker.invoke(self._command(args), self._env(), self.output_file, self.target_dir)
                done = self._worker.answer(request, DBT_TIMEOUT_S)
                assert done is not None and done.get("success"), self._failure(f"`dbt {' '.join(args)}`")
            if self.after is not None:
                self.after()

    def spark_setting(self, key: str) -> str | None:
        """A setting of the Spark session the build ran on."""
        self.wait()
        return self._worker.spark_setting(key)

    def _reading_worker(self) -> DbtWorker:
        """The worker that reads the build's warehouse once dbt is done: a local build's own, in
        dbt's session; another target's, a worker of its own on its Spark dir."""
        self.wait()
        if self.target == "local":
            return self._worker
        if self._reader is None:
            self._reader = DbtWorker(self.spark_dir)
        return self._reader

    def query(self, sql: str) -> list[dict[str, Any]]:
        """The rows of a Spark SQL query on the build's warehouse (`_reading_worker`)."""
        return self._reading_worker().query(sql)

    def run_results(self) -> dict[str, str]:
        """unique_id -> status of every node the invocation ran; exposures, which run nothing
        (their status is `no-op`), are left out."""
        results = json.loads((self.target_dir / "run_results.json").read_text())
        return {
            result["unique_id"]: result["status"]
            for result in results["results"]
            if not result["unique_id"].startswith("exposure.")
        }

    def node_messages(self, resource_type: str = "model") -> dict[str, str]:
        """Name of each node of `resource_type` (model, seed) -> the message dbt reports for it
        (its adapter response): `NOTHING NEW` or `UNCHANGED` for one a run left as it was
        (macros/incremental/)."""
        results = json.loads((self.target_dir / "run_results.json").read_text())
        return {
            result["unique_id"].split(".")[-1]: result["adapter_response"].get("_message", "")
            for result in results["results"]
            if result["unique_id"].startswith(f"{resource_type}.")
        }

    def marts(self) -> dict[str, list[dict[str, Any]]]:
        """The marts' rows, read once after dbt is done; timestamps as aware UTC datetimes."""
        if self._marts is None:
            made = FACTS_MARTS if self.args == FACTS_BUILD else MARTS
            self._marts = {name: table["rows"] for name, table in self.tables(made).items()}
        return self._marts

    def tables(self, names: tuple[str, ...], suffix: str = "") -> dict[str, dict[str, Any]]:
        """Each table's Spark column types and rows, read after dbt is done, from the build's
        schema (its name + `suffix`, such as `_replica`); timestamps as aware UTC datetimes,
        bytes as bytes, decimals as their text (`_reading_worker`)."""
        tables = self._reading_worker().tables(self.schema + suffix, names)
        for table in tables.values():
            for row in table["rows"]:
                for column in table["timestamps"]:
                    if row[column] is not None:
                        row[column] = EPOCH + timedelta(microseconds=row[column])
                for column in table["binaries"]:
                    if row[column] is not None:
                        row[column] = bytes.fromhex(row[column])
        return tables

    def kill(self) -> None:
        """Kills dbt and its Spark JVM at once (SIGKILL to the worker), as a crash would."""
        self._worker.kill()

    def stop(self) -> None:
        """Ends the workers of its own; a shared one is closed by whoever made it."""
        if self._reader is not None:
            self._reader.close()
        if self.worker is None:
            self._worker.close()


def file_name(file_path: str) -> str:
    """The landed file's name, after checking the URI is a file: URI of an absolute path."""
    uri = urlparse(file_path)
    assert uri.scheme == "file" and uri.path.startswith("/"), file_path
    return Path(uri.path).name


@dataclass
class ThriftServer:
    """`scripts/thrift_server.sh` on free loopback ports, its warehouse and metastore in
    `state_dir` (laid out as a Build's Spark dir, so `Build.tables` reads them once it is down)."""

    state_dir: Path
    ansi_mode: bool = False
    generated_code: bool = False  # Spark's, which the other test JVMs run without
    thrift_port: int = field(default_factory=free_port)
    connect_port: int = field(default_factory=free_port)
    # As its sessions saw them once it was up.
    runs_ansi_mode: bool | None = None
    runs_generated_code: bool | None = None

    @property
    def env(self) -> dict[str, str]:
        return {
            "CDC_THRIFT_DIR": str(self.state_dir),
            "CDC_THRIFT_PORT": str(self.thrift_port),
            "CDC_SPARK_CONNECT_PORT": str(self.connect_port),
            "CDC_SPARK_CODEGEN": str(self.generated_code).lower(),
            **(ANSI_MODE if self.ansi_mode else {}),
        }

    def _setting(self, key: str) -> str:
        """A setting as a new session on the server sees it (dbt's sessions are such)."""
        from pyhive import hive

        with hive.connect("127.0.0.1", port=self.thrift_port, username="dbt") as connection:
            cursor = connection.cursor()
            cursor.execute(f"set {key}")
            return cursor.fetchall()[0][1]

    def _script(self, action: str) -> None:
        done = subprocess.run(
            [str(REPO / "scripts" / "thrift_server.sh"), action],
            env={**os.environ, **self.env, "CDC_SPARK_DRIVER_MEMORY": DRIVER_MEMORY},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, f"thrift_server.sh {action}:\n{done.stdout}\n{done.stderr}"

    def up(self) -> None:
        self._script("up")
        self.runs_ansi_mode = self._setting("spark.sql.ansi.enabled") == "true"
        self.runs_generated_code = self._setting("spark.sql.codegen.wholeStage") == "true"

    def down(self) -> None:
        self._script("down")
