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
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
# The repo's own venv (make setup); a worktree without one uses the venv running pytest.
DBT = REPO / ".venv" / "bin" / "dbt"
if not DBT.exists():
    DBT = Path(sys.executable).with_name("dbt")
SCHEMA = "cdc"
MARTS = ("fct_row_changes", "fct_schema_changes", "fct_rejected_messages", "fct_message_reconciliation")
DBT_TIMEOUT_S = 1800

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
        df = spark.table(args["schema"] + "." + table)
        df = df.select(*[
            F.unix_micros(F.col(f.name)).alias(f.name) if isinstance(f.dataType, TimestampType)
            else F.col(f.name)
            for f in df.schema.fields
        ])
        out[table] = [row.asDict(recursive=True) for row in df.collect()]
    spark.stop()
    print("RESULT=" + json.dumps(out))
    """
)

TIMESTAMP_COLUMNS = {"event_at", "emitted_at", "landed_at"}


@dataclass
class Build:
    """One dbt invocation in its own Spark dir, started in the background."""

    name: str
    root: Path
    args: list[str]
    landing_root: Path | None = None
    driver_memory: str = "3g"
    dbt_vars: dict[str, Any] = field(default_factory=dict)  # besides landing_root
    proc: subprocess.Popen | None = None
    _marts: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False)

    @property
    def spark_dir(self) -> Path:
        return self.root / "spark"

    @property
    def target_dir(self) -> Path:
        return self.root / "target"

    @property
    def output_file(self) -> Path:
        return self.root / "dbt_output.txt"

    def start(self, profiles_dir: Path) -> None:
        self.spark_dir.mkdir(parents=True)
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"CDC_LANDING_ROOT", "DBT_PROFILES_DIR", "DBT_TARGET_PATH", "DBT_LOG_PATH"}
        }
        env.update(
            DBT_TARGET="local",
            CDC_SCHEMA=SCHEMA,
            CDC_SPARK_DIR=str(self.spark_dir),
            CDC_SPARK_DRIVER_MEMORY=self.driver_memory,
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            DBT_USE_COLORS="false",
        )
        cmd = [
            str(DBT),
            *self.args,
            "--profiles-dir", str(profiles_dir),
            "--target-path", str(self.target_dir),
            "--log-path", str(self.root / "logs"),
        ]  # fmt: skip
        dbt_vars = dict(self.dbt_vars)
        if self.landing_root is not None:
            dbt_vars["landing_root"] = str(self.landing_root)
        if dbt_vars:
            cmd += ["--vars", json.dumps(dbt_vars)]
        with self.output_file.open("w") as out:
            self.proc = subprocess.Popen(
                cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT
            )

    def wait(self) -> None:
        assert self.proc is not None
        try:
            returncode = self.proc.wait(timeout=DBT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"{self.name}: dbt did not finish in {DBT_TIMEOUT_S}s")
        if returncode != 0:
            pytest.fail(
                f"{self.name}: `dbt {' '.join(self.args)}` exited {returncode}:\n"
                + self.output_file.read_text()[-8000:]
            )

    def run_results(self) -> dict[str, str]:
        """unique_id -> status of every node the invocation ran."""
        results = json.loads((self.target_dir / "run_results.json").read_text())
        return {result["unique_id"]: result["status"] for result in results["results"]}

    def marts(self) -> dict[str, list[dict[str, Any]]]:
        """The marts' rows, read once after dbt exited; timestamps as aware UTC datetimes."""
        if self._marts is None:
            self.wait()
            proc = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _READ_MARTS,
                    json.dumps(
                        {"spark_dir": str(self.spark_dir), "schema": SCHEMA, "tables": list(MARTS)}
                    ),
                ],
                cwd=self.spark_dir,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
            line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT="))
            marts = json.loads(line[len("RESULT=") :])
            for rows in marts.values():
                for row in rows:
                    for column in TIMESTAMP_COLUMNS & row.keys():
                        if row[column] is not None:
                            row[column] = EPOCH + timedelta(microseconds=row[column])
            self._marts = marts
        return self._marts

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def file_name(file_path: str) -> str:
    """The landed file's name, after checking the URI is a file: URI of an absolute path."""
    uri = urlparse(file_path)
    assert uri.scheme == "file" and uri.path.startswith("/"), file_path
    return Path(uri.path).name
