"""A Python process that runs dbt invocations one after another, and reads the tables they
wrote, on one Spark dir (warehouse + Derby metastore), for the end-to-end test modules.

Why a process of its own rather than a `dbt` subprocess per invocation: on the local target,
Spark runs in the dbt process, and a new JVM spends most of a small build on its start, class
loading and JIT compilation. Invocations in one process share one SparkSession (dbt's
programmatic runner, the code path of the `dbt` command): a `dbt run` over a landed stream with
no new data took 123 s in a new JVM and 49 s in the third invocation of the same one. Tables are
read in the same process, since embedded Derby admits one JVM at a time.

Requests and answers are JSON lines on the process's stdin and stdout; each invocation's output
(dbt's console log) goes to a file of its own, and Spark's log to the worker's log file.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PARTIAL_PARSE = "partial_parse.msgpack"  # dbt's parse of the project, in its target dir


@dataclass
class DbtWorker:
    """The client side: starts the process on first use; requests are answered in order."""

    spark_dir: Path
    proc: subprocess.Popen | None = field(default=None, repr=False)
    _sent: int = field(default=0, repr=False)
    _answers: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    # Answer lines as a thread reads them (None once the process ended): a pipe's reader buffers
    # lines ahead, so waiting on the pipe itself could miss an answer already read.
    _arrived: queue.Queue[dict[str, Any] | None] = field(default_factory=queue.Queue, repr=False)
    _last_target: Path | None = field(default=None, repr=False)  # the last invocation's target dir

    @property
    def log_file(self) -> Path:
        return self.spark_dir / "worker.log"

    def submit(self, request: dict[str, Any]) -> int:
        # Started on first use, and again after it died or was killed: the requests of a
        # worker that modules share outlive one module's failure.
        if self.proc is None or self.proc.poll() is not None:
            self._arrived = queue.Queue()
            self.spark_dir.mkdir(parents=True, exist_ok=True)
            tests = Path(__file__).resolve().parents[1]
            with self.log_file.open("a") as log:
                # Its own process group, so that `kill` ends the JVM with it. Run as a module of
                # tests/: dbt imports every top-level `dbt_*` module on the path as a plugin.
                self.proc = subprocess.Popen(
                    [sys.executable, "-u", "-m", "support.dbt_worker", str(self.spark_dir)],
                    cwd=tests.parent,
                    env={**os.environ, "PYTHONPATH": str(tests)},
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    start_new_session=True,
                )
            threading.Thread(target=_read_answers, args=(self.proc.stdout, self._arrived), daemon=True).start()
        assert self.proc.stdin is not None
        self._sent += 1
        self.proc.stdin.write(json.dumps({"id": self._sent, **request}) + "\n")
        self.proc.stdin.flush()
        return self._sent

    def answer(self, request_id: int, timeout_s: float) -> dict[str, Any] | None:
        """The request's answer; None if the worker died or `timeout_s` passed first."""
        while request_id not in self._answers:
            try:
                answer = self._arrived.get(timeout=timeout_s) if timeout_s else self._arrived.get_nowait()
            except queue.Empty:
                return None
            if answer is None:
                self._arrived.put(None)  # ended for every later call too
                return None
            self._answers[answer["id"]] = answer
        return self._answers[request_id]

    def call(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        answer = self.answer(self.submit(request), timeout_s)
        assert answer is not None, "the dbt worker ended or hung:\n" + self.log_tail()
        assert "error" not in answer, answer["error"]
        return answer

    def invoke(self, args: list[str], env: dict[str, str], output_file: Path, target_dir: Path) -> int:
        self._reuse_parse(target_dir)
        return self.submit({"op": "invoke", "args": args, "env": env, "output": str(output_file)})

    def _reuse_parse(self, target_dir: Path) -> None:
        """Gives target_dir the project as the last invocation parsed it, so that dbt parses only
        what changed since (a full parse takes seconds of Python): dbt parses in full when the
        vars, the profile or the files differ."""
        last, self._last_target = self._last_target, target_dir
        if last is not None and last != target_dir and (last / PARTIAL_PARSE).exists():
            target_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(last / PARTIAL_PARSE, target_dir / PARTIAL_PARSE)

    def tables(self, schema: str, names: tuple[str, ...], timeout_s: float = 600) -> dict[str, Any]:
        return self.call({"op": "tables", "schema": schema, "tables": list(names)}, timeout_s)["tables"]

    def query(self, sql: str, timeout_s: float = 600) -> list[dict[str, Any]]:
        """The rows of a Spark SQL query on the worker's warehouse."""
        return self.call({"op": "query", "sql": sql}, timeout_s)["rows"]

    def spark_setting(self, key: str, timeout_s: float = 600) -> str | None:
        """A setting of the worker's running SparkSession (None before any build started one);
        answered, as every request, after the requests before it."""
        return self.call({"op": "setting", "key": key}, timeout_s)["value"]

    def log_tail(self) -> str:
        return self.log_file.read_text()[-8000:] if self.log_file.exists() else ""

    def kill(self) -> None:
        """Ends the process and its Spark JVM at once (SIGKILL), as a crash would."""
        if self.proc is not None:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def close(self) -> None:
        """Lets the worker stop Spark and exit (releasing the metastore); kills it if it does not."""
        if self.proc is None or self.proc.poll() is not None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.kill()


def _read_answers(stdout: IO[str], arrived: queue.Queue[dict[str, Any] | None]) -> None:
    for line in stdout:
        arrived.put(json.loads(line))
    arrived.put(None)


# ----------------------------------------------------------------------------- the process


def _invoke(args: list[str], env: dict[str, str], output: str) -> dict[str, Any]:
    from dbt.cli.main import dbtRunner

    # dbt reads env_var() at each invocation; the JVM keeps what it started with.
    os.environ.clear()
    os.environ.update(env)
    with open(output, "a") as out:
        sys.stdout.flush()
        answers = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            result = dbtRunner().invoke(args)
        finally:
            sys.stdout.flush()
            os.dup2(answers, 1)
            os.close(answers)
    return {"success": result.success, "exception": None if result.exception is None else repr(result.exception)}


def _session(spark_dir: str) -> Any:
    """dbt's SparkSession, as dbt configured it, else one of its own on the Spark dir."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:
        return SparkSession.builder.getOrCreate()
    return (
        SparkSession.builder.master("local[1]")
        .appName("cdc-test-read-tables")
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
        # Delta, as the profile loads it (jvm/jars, from the repo folder this worker runs in).
        .config("spark.driver.extraClassPath", os.environ.get("CDC_SPARK_JARS", "jvm/jars/spark-4.0/*"))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .enableHiveSupport()
        .getOrCreate()
    )


def _read_tables(spark_dir: str, schema: str, names: list[str]) -> dict[str, Any]:
    """Each table's Spark column types and rows; timestamps as unix microseconds (no time-zone
    guessing), bytes as hex (JSON has no bytes), decimals as their exact text."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, TimestampType

    spark = _session(spark_dir)
    tables = {}
    for name in names:
        source = spark.table(f"{schema}.{name}")
        timestamps = [f.name for f in source.schema.fields if isinstance(f.dataType, TimestampType)]
        binaries = [f.name for f in source.schema.fields if isinstance(f.dataType, BinaryType)]
        rows = source.select(
            *[
                F.unix_micros(F.col(f"`{f.name}`")).alias(f.name)
                if f.name in timestamps
                else F.hex(F.col(f"`{f.name}`")).alias(f.name)
                if f.name in binaries
                else F.col(f"`{f.name.replace('`', '``')}`")
                for f in source.schema.fields
            ]
        ).collect()
        tables[name] = {
            "types": {f.name: f.dataType.simpleString() for f in source.schema.fields},
            "timestamps": timestamps,
            "binaries": binaries,
            "rows": [row.asDict(recursive=True) for row in rows],
        }
    return tables


def _query(spark_dir: str, sql: str) -> list[dict[str, Any]]:
    return [row.asDict(recursive=True) for row in _session(spark_dir).sql(sql).collect()]


def _spark_setting(key: str) -> str | None:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is None:
        return None
    return SparkSession.builder.getOrCreate().conf.get(key, None)


def main(spark_dir: str) -> None:
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "invoke":
                answer = _invoke(request["args"], request["env"], request["output"])
            elif request["op"] == "setting":
                answer = {"value": _spark_setting(request["key"])}
            elif request["op"] == "query":
                answer = {"rows": _query(spark_dir, request["sql"])}
            else:
                answer = {"tables": _read_tables(spark_dir, request["schema"], request["tables"])}
        except Exception:  # answered, so that the test fails with it rather than hanging
            answer = {"error": traceback.format_exc()}
        answers.write(json.dumps({"id": request["id"], **answer}, default=str) + "\n")
        answers.flush()
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()


if __name__ == "__main__":
    main(sys.argv[1])
