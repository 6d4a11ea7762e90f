"""With ``connect_url`` set, the ``session`` submission method runs a Python model on a real
Spark Connect server: its own JVM, started with pyspark's bundled spark-submit (pyspark 4
bundles the Connect server; 3.5 does not)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pyspark
import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Spark Connect server (its own JVM) from pyspark's bundled spark-submit."""
    spark_home = Path(pyspark.__file__).parent
    port = _free_port()
    workdir = tmp_path_factory.mktemp("connect_server")
    log_path = workdir / "server.log"
    cmd = [
        str(spark_home / "bin" / "spark-submit"),
        "--class",
        "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--master",
        "local[1]",
        "--driver-memory",
        "512m",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        f"spark.sql.warehouse.dir={workdir / 'warehouse'}",
        "spark-internal",
    ]
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=workdir,
            env={**os.environ, "SPARK_HOME": str(spark_home)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 180
            while True:
                if proc.poll() is not None:
                    pytest.fail("Spark Connect server exited:\n" + log_path.read_text()[-3000:])
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if time.monotonic() > deadline:
                    pytest.fail("Spark Connect server did not start within 180s")
                time.sleep(0.5)
            yield f"sc://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# Runs in its own process: PySpark can't hold a Connect session next to the
# classic one this pytest process already has.
_CONNECT_CLIENT = textwrap.dedent(
    '''
    import json, sys
    from dbt_common.exceptions import DbtRuntimeError
    from dbt.adapters.sparkpy.connections import SparkpyCredentials
    from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper

    url = sys.argv[1]
    creds = SparkpyCredentials.from_dict(
        {"method": "thrift", "host": "localhost", "schema": "c", "connect_url": url}
    )
    helper = SessionPythonJobHelper({"alias": "m", "schema": "c", "config": {}}, creds)
    # Same shape as dbt-spark's py_write_table: model(), isinstance check, writer.
    helper.submit("""
    import pyspark
    from pyspark.sql import functions as F

    def model(dbt, spark):
        return spark.range(3).withColumn("doubled", F.col("id") * 2)

    df = model(None, spark)
    assert isinstance(df, pyspark.sql.dataframe.DataFrame), type(df)
    df.write.mode("overwrite").format("parquet").saveAsTable("connect_probe")
    """)
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.remote(url).getOrCreate()
    out = {
        "session": type(spark).__module__,
        "rows": [r.asDict() for r in spark.table("connect_probe").orderBy("id").collect()],
    }
    try:
        helper.submit('spark.table("no_such_table_on_connect").collect()')
    except DbtRuntimeError as exc:
        out["error"] = str(exc)
    print("RESULT=" + json.dumps(out))
    '''
)


def test_connect_url_runs_model_on_spark_connect_server(connect_server: str, tmp_path: Path) -> None:
    """With connect_url, `spark` is a Spark Connect session on that server."""
    proc = subprocess.run(
        [sys.executable, "-c", _CONNECT_CLIENT, connect_server],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT="))
    result = json.loads(line[len("RESULT=") :])
    assert result["session"] == "pyspark.sql.connect.session"
    assert result["rows"] == [
        {"id": 0, "doubled": 0},
        {"id": 1, "doubled": 2},
        {"id": 2, "doubled": 4},
    ]
    assert "no_such_table_on_connect" in result["error"]
    assert "failed with traceback" in result["error"]
