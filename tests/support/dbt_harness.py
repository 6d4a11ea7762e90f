"""Runs `dbt build` in a subprocess and reads the marts it wrote, for end-to-end test modules.

How it runs, and why:
- Each dbt invocation is a subprocess of the venv's dbt (cwd = repo root) with its own Spark dir
  (CDC_SPARK_DIR: warehouse + Derby metastore), target path and log path under pytest's tmp dir,
  and a copy of profiles.example.yml as its profile. Nothing under the repo's .spark/ is touched.
- Builds start in the background (`Build.start`) so several can overlap their JVM/Derby start-up;
  each is awaited by whoever needs it (`Build.wait`, `Build.marts`).
- The marts are read after dbt has exited (embedded Derby admits one process at a time) by ONE
  SparkSession in a separate Python process that prints JSON: the pytest process may already hold
  a SparkSession (conftest.py), and a JVM holds one SparkContext, so it could not open this
  warehouse's metastore in-process. Timestamps cross as unix microseconds (no time-zone guessing).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
# The dbt of the venv running pytest (.venv, or .venv-spark35 for `make test-spark35`), else the repo's.
DBT = Path(sys.executable).with_name("dbt")
if not DBT.exists():
    DBT = REPO / ".venv" / "bin" / "dbt"
SCHEMA = "cdc"
MARTS = (
    "fct_row_changes",
    "fct_schema_changes",
    "fct_rejected_messages",
    "fct_message_reconciliation",
    "fct_landed_files",
    "dim_row_versions",
    "dim_current_rows",
    "dim_keyless_tables",
)
DBT_TIMEOUT_S = 1800
# dbt unit tests do not depend on the landed data: `make test-dbt-unit` runs them, once per Spark.
BUILD_WITHOUT_UNIT_TESTS = ["build", "--exclude", "test_type:unit"]

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def profiles_dir(root: Path) -> Path:
    """A folder holding a copy of profiles.example.yml as profiles.yml."""
    folder = root / "profiles"
    folder.mkdir()
    shutil.copy(REPO / "profiles.example.yml", folder / "profiles.yml")
    return folder


# ----------------------------------------------------------------------------- harness


_READ_MARTS = textwrap.dedent(
    """
    import json, sys
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType

    args = json.loads(sys.argv[1])
    spark_dir = args["spark_dir"]
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("cdc-e2e-read-marts")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.warehouse.dir", spark_dir + "/warehouse")
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            "jdbc:derby:;databaseName=" + spark_dir + "/metastore_db;create=true",
        )
        .config("spark.driver.extraJavaOptions", "-Dderby.system.home=" + spark_dir)
        .enableHiveSupport()
        .getOrCreate()
    )
    out = {}
    for table in args["tables"]:
        source = spark.table(args["schema"] + "." + table)
        timestamps = [f.name for f in source.schema.fields if isinstance(f.dataType, TimestampType)]
        df = source.select(*[
            F.unix_micros(F.col(f"`{f.name}`")).alias(f.name) if f.name in timestamps
            else F.col(f"`{f.name.replace('`', '``')}`")
            for f in source.schema.fields
        ])
        out[table] = {
            "types": {f.name: f.dataType.simpleString() for f in source.schema.fields},
            "timestamps": timestamps,
            "rows": [row.asDict(recursive=True) for row in df.collect()],
        }
    spark.stop()
    print("RESULT=" + json.dumps(out, default=str))  # decimals as their exact text
    """
)


@dataclass
class Build:
    """One dbt invocation in its own Spark dir, started in the background."""

    name: str
    root: Path
    args: list[str]
    landing_root: Path | None = None
    driver_memory: str = "3g"
    dbt_vars: dict[str, Any] = field(default_factory=dict)  # besides landing_root
    target: str = "local"
    env: dict[str, str] = field(default_factory=dict)  # besides the harness's own
    # dbt commands run one after another once `args` succeeded, e.g. a run-operation.
    followups: list[list[str]] = field(default_factory=list)
    # Called once `args` and the follow-ups succeeded, e.g. to stop the server the build used.
    after: Callable[[], None] | None = None
    # Another build's Spark dir, to run on its warehouse (incremental runs); default root/spark.
    shared_spark_dir: Path | None = None
    check: bool = True  # a non-zero exit of `args` fails the test
    proc: subprocess.Popen | None = None
    _profiles_dir: Path | None = field(default=None, repr=False)
    _marts: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False)
    _followups_done: bool = field(default=False, repr=False)

    @property
    def spark_dir(self) -> Path:
        return self.shared_spark_dir or self.root / "spark"

    @property
    def target_dir(self) -> Path:
        return self.root / "target"

    @property
    def output_file(self) -> Path:
        return self.root / "dbt_output.txt"

    def start(self, profiles_dir: Path) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.spark_dir.mkdir(parents=True, exist_ok=True)
        self._profiles_dir = profiles_dir
        with self.output_file.open("w") as out:
            # Its own process group, so that `kill` ends the JVM with it.
            self.proc = subprocess.Popen(
                self._command(self.args),
                cwd=REPO,
                env=self._env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"CDC_LANDING_ROOT", "DBT_PROFILES_DIR", "DBT_TARGET_PATH", "DBT_LOG_PATH"}
        }
        env.update(
            DBT_TARGET=self.target,
            CDC_SCHEMA=SCHEMA,
            CDC_SPARK_DIR=str(self.spark_dir),
            CDC_SPARK_DRIVER_MEMORY=self.driver_memory,
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            DBT_USE_COLORS="false",
            **self.env,
        )
        return env

    def _command(self, args: list[str]) -> list[str]:
        assert self._profiles_dir is not None
        cmd = [
            str(DBT),
            *args,
            "--profiles-dir",
            str(self._profiles_dir),
            "--target-path",
            str(self.target_dir),
            "--log-path",
            str(self.root / "logs"),
        ]
        dbt_vars = dict(self.dbt_vars)
        if self.landing_root is not None:
            dbt_vars["landing_root"] = str(self.landing_root)
        if dbt_vars:
            cmd += ["--vars", json.dumps(dbt_vars)]
        return cmd

    def wait(self) -> None:
        """Waits for `args`, then runs the follow-ups; fails the test on any failure."""
        assert self.proc is not None
        try:
            returncode = self.proc.wait(timeout=DBT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"{self.name}: dbt did not finish in {DBT_TIMEOUT_S}s")
        if returncode != 0 and self.check:
            pytest.fail(
                f"{self.name}: `dbt {' '.join(self.args)}` exited {returncode}:\n"
                + self.output_file.read_text()[-8000:]
            )
        if not self._followups_done and returncode == 0:
            self._followups_done = True
            for args in self.followups:
                done = subprocess.run(
                    self._command(args),
                    cwd=REPO,
                    env=self._env(),
                    capture_output=True,
                    text=True,
                    timeout=DBT_TIMEOUT_S,
                    check=False,
                )
                assert done.returncode == 0, f"{self.name}: `dbt {' '.join(args)}`:\n{done.stdout[-8000:]}"
            if self.after is not None:
                self.after()

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def run_results(self) -> dict[str, str]:
        """unique_id -> status of every node the invocation ran; exposures, which run nothing
        (their status is `no-op`), are left out."""
        results = json.loads((self.target_dir / "run_results.json").read_text())
        return {
            result["unique_id"]: result["status"]
            for result in results["results"]
            if not result["unique_id"].startswith("exposure.")
        }

    def marts(self) -> dict[str, list[dict[str, Any]]]:
        """The marts' rows, read once after dbt exited; timestamps as aware UTC datetimes."""
        if self._marts is None:
            self._marts = {name: table["rows"] for name, table in self.tables(MARTS).items()}
        return self._marts

    def tables(self, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        """Each table's Spark column types and rows, read after dbt exited; timestamps as
        aware UTC datetimes, decimals as their text."""
        self.wait()
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                _READ_MARTS,
                json.dumps({"spark_dir": str(self.spark_dir), "schema": SCHEMA, "tables": list(names)}),
            ],
            cwd=self.spark_dir,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
        line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT="))
        tables = json.loads(line[len("RESULT=") :])
        for table in tables.values():
            for row in table["rows"]:
                for column in table["timestamps"]:
                    if row[column] is not None:
                        row[column] = EPOCH + timedelta(microseconds=row[column])
        return tables

    def kill(self) -> None:
        """Kills dbt and its Spark JVM at once (SIGKILL to the process group), as a crash would."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def file_name(file_path: str) -> str:
    """The landed file's name, after checking the URI is a file: URI of an absolute path."""
    uri = urlparse(file_path)
    assert uri.scheme == "file" and uri.path.startswith("/"), file_path
    return Path(uri.path).name


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class ThriftServer:
    """`scripts/thrift_server.sh` on free loopback ports, its warehouse and metastore in
    `state_dir` (laid out as a Build's Spark dir, so `Build.tables` reads them once it is down)."""

    state_dir: Path
    thrift_port: int = field(default_factory=free_port)
    connect_port: int = field(default_factory=free_port)

    @property
    def env(self) -> dict[str, str]:
        return {
            "CDC_THRIFT_DIR": str(self.state_dir),
            "CDC_THRIFT_PORT": str(self.thrift_port),
            "CDC_SPARK_CONNECT_PORT": str(self.connect_port),
        }

    def _script(self, action: str) -> None:
        done = subprocess.run(
            [str(REPO / "scripts" / "thrift_server.sh"), action],
            env={**os.environ, **self.env, "CDC_SPARK_DRIVER_MEMORY": "3g"},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, f"thrift_server.sh {action}:\n{done.stdout}\n{done.stderr}"

    def up(self) -> None:
        self._script("up")

    def down(self) -> None:
        self._script("down")
