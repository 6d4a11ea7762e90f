"""Tests for the ``sparkpy`` dbt adapter (dbt-spark + Python models outside Databricks).

Nothing under test is mocked: the unit tests exec code on a real local
SparkSession, the Spark Connect test talks to a real Connect server started
with pyspark's bundled spark-submit, and the end-to-end test runs the installed
``dbt`` CLI in a subprocess (one JVM per dbt process) against an embedded Spark
with a Derby metastore under ``tmp_path``.

Install the plugin first: ``.venv/bin/pip install -q .``
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Iterator, List

import pyspark
import pytest
from dbt_common.exceptions import DbtRuntimeError
from pyspark.sql import SparkSession

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.python_submissions import AllPurposeClusterPythonJobHelper
from dbt.adapters.sparkpy import Plugin
from dbt.adapters.sparkpy.connections import SparkpyConnectionManager, SparkpyCredentials
from dbt.adapters.sparkpy.impl import SparkpyAdapter
from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper
from dbt.adapters.sparkpy.session import SparkpySessionConnectionWrapper

VENV_BIN = Path(sys.executable).parent
DBT = str(VENV_BIN / "dbt")
SCHEMA = "sparkpy_e2e"


# --------------------------------------------------------------------------- unit


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """A small in-process SparkSession; the helper must find it as the active one."""
    warehouse = tmp_path_factory.mktemp("unit_warehouse")
    session = (
        SparkSession.builder.master("local[1]")
        .appName("sparkpy-unit")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .getOrCreate()
    )
    yield session
    session.stop()


def _creds(**overrides: Any) -> SparkpyCredentials:
    fields: Dict[str, Any] = {"method": "session", "host": "localhost", "schema": "unit"}
    fields.update(overrides)
    return SparkpyCredentials.from_dict(fields)


def _helper(creds: SparkpyCredentials | None = None) -> SessionPythonJobHelper:
    parsed_model = {"alias": "probe_model", "schema": "unit", "config": {}}
    return SessionPythonJobHelper(parsed_model, creds or _creds())


def test_credentials_type_and_connect_url() -> None:
    creds = _creds(connect_url="sc://localhost:15002")
    assert creds.type == "sparkpy"
    assert creds.connect_url == "sc://localhost:15002"
    assert _creds().connect_url is None
    assert Plugin.adapter is SparkpyAdapter
    assert Plugin.dependencies == ["spark"]
    assert Plugin.project_name == "dbt_sparkpy"
    assert SparkpyAdapter.type() == "sparkpy"


def _adapter(creds: SparkpyCredentials) -> SparkpyAdapter:
    # The adapter only reads `config.credentials` / `config.log_cache_events` here.
    config = SimpleNamespace(credentials=creds, log_cache_events=False)
    return SparkpyAdapter(config, multiprocessing.get_context("spawn"))


def test_default_submission_method_choice() -> None:
    assert _adapter(_creds()).default_python_submission_method == "session"
    thrift_with_connect = _creds(method="thrift", connect_url="sc://spark:15002")
    assert _adapter(thrift_with_connect).default_python_submission_method == "session"
    http_databricks = _creds(method="http", host="x.cloud.databricks.com", token="t", cluster="c")
    assert _adapter(http_databricks).default_python_submission_method == "all_purpose_cluster"

    helpers = _adapter(_creds()).python_submission_helpers
    assert helpers["session"] is SessionPythonJobHelper
    assert helpers["all_purpose_cluster"] is AllPurposeClusterPythonJobHelper
    assert "job_cluster" in helpers


def test_a_value_is_queried_once_per_run() -> None:
    adapter = _adapter(_creds())
    asked = []

    def execute(sql: str, fetch: bool = False) -> tuple[None, SimpleNamespace]:
        asked.append((sql, fetch))
        return None, SimpleNamespace(rows=[(f"value of {sql}", "second column")])

    adapter.execute = execute  # type: ignore[method-assign]
    assert adapter.query_value_once("select version()") == "value of select version()"
    assert adapter.query_value_once("select 2") == "value of select 2"
    assert adapter.query_value_once("select version()") == "value of select version()"
    assert asked == [("select version()", True), ("select 2", True)]


def test_session_seed_bindings_are_sql_literals() -> None:
    render = SparkpySessionConnectionWrapper._fix_binding
    assert render(None) == "NULL"  # dbt-spark gives the text 'None'
    assert render("it's a \\ path") == "'it\\'s a \\\\ path'"
    assert render("VARCHAR") == "'VARCHAR'"
    assert render(12) == 12.0


def test_session_connections_use_the_seed_safe_wrapper() -> None:
    connection = SparkpyConnectionManager.open(
        Connection(type="sparkpy", name="t", credentials=_creds(), state=ConnectionState.INIT)
    )
    assert isinstance(connection.handle, SparkpySessionConnectionWrapper)


def test_submit_binds_spark_to_active_session(spark: SparkSession) -> None:
    code = textwrap.dedent(
        """
        def model(dbt, spark):
            return spark.range(5).selectExpr("id * 10 AS v")

        df = model(None, spark)
        df.createOrReplaceTempView("sparkpy_probe")
        """
    )
    _helper().submit(code)
    # The temp view is session-scoped, so seeing it proves `spark` was our session.
    rows = [r.v for r in spark.table("sparkpy_probe").orderBy("v").collect()]
    assert rows == [0, 10, 20, 30, 40]


def test_model_exception_surfaces_as_dbt_error_with_traceback(spark: SparkSession) -> None:
    code = textwrap.dedent(
        """
        def model(dbt, spark):
            raise ValueError("boom from the model")

        df = model(None, spark)
        """
    )
    with pytest.raises(DbtRuntimeError) as excinfo:
        _helper().submit(code)
    message = str(excinfo.value)
    assert "Python model unit.probe_model failed with traceback" in message
    assert "ValueError: boom from the model" in message
    # The model's own frame and source line are in the traceback.
    assert '<dbt python model unit.probe_model>", line 3, in model' in message
    assert 'raise ValueError("boom from the model")' in message
    assert "python_submissions.py" not in message  # traceback starts in the model
    assert isinstance(excinfo.value.__cause__, ValueError)


def test_spark_error_in_model_surfaces_as_dbt_error(spark: SparkSession) -> None:
    code = 'spark.table("no_such_table_sparkpy").collect()\n'
    with pytest.raises(DbtRuntimeError, match="no_such_table_sparkpy"):
        _helper().submit(code)


def test_connect_url_next_to_classic_session_is_a_clear_dbt_error(spark: SparkSession) -> None:
    helper = _helper(_creds(method="thrift", connect_url="sc://localhost:1"))
    with pytest.raises(DbtRuntimeError, match="PySpark cannot mix the two"):
        helper.submit("raise AssertionError('must not run')\n")


# --------------------------------------------------------------------- connect


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


# --------------------------------------------------------------------------- e2e


def _write_project(root: Path) -> Dict[str, str]:
    project = root / "project"
    spark_dir = root / "spark"
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    spark_dir.mkdir()

    (project / "dbt_project.yml").write_text(
        textwrap.dedent(
            """
            name: sparkpy_e2e
            version: "1.0"
            config-version: 2
            profile: sparkpy_e2e
            model-paths: ["models"]
            macro-paths: ["macros"]
            models:
              sparkpy_e2e:
                +materialized: table
                +file_format: parquet
            """
        )
    )
    # Which prefix does `adapter.dispatch` pick for type `sparkpy`? Must be spark__.
    (project / "macros" / "which_impl.sql").write_text(
        textwrap.dedent(
            """
            {% macro which_impl() %}{{ return(adapter.dispatch('which_impl')()) }}{% endmacro %}
            {% macro default__which_impl() %}default{% endmacro %}
            {% macro spark__which_impl() %}spark{% endmacro %}
            """
        )
    )
    (project / "models" / "sql_model.sql").write_text(
        textwrap.dedent(
            """
            select 1 as id, 'a' as name, '{{ which_impl() }}' as impl
            union all select 2, 'b', '{{ which_impl() }}'
            union all select 3, 'c', '{{ which_impl() }}'
            """
        )
    )
    # No `submission_method` config: the adapter default must pick "session".
    (project / "models" / "py_model.py").write_text(
        textwrap.dedent(
            """
            from pyspark.sql import functions as F


            def model(dbt, spark):
                return dbt.ref("sql_model").withColumn("doubled", F.col("id") * 2)
            """
        )
    )
    (project / "models" / "failing_py_model.py").write_text(
        textwrap.dedent(
            """
            def model(dbt, spark):
                df = dbt.ref("sql_model")
                if df.count() > 0:
                    raise RuntimeError("sparkpy-e2e-deliberate-failure")
                return df
            """
        )
    )

    confs = {
        "spark.master": "local[2]",
        "spark.driver.memory": "1g",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.warehouse.dir": str(spark_dir / "warehouse"),
        "javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={spark_dir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={spark_dir}",
    }
    profile = {
        "sparkpy_e2e": {
            "target": "local",
            "outputs": {
                "local": {
                    "type": "sparkpy",
                    "method": "session",
                    "host": "localhost",
                    "schema": SCHEMA,
                    "threads": 1,
                    "server_side_parameters": confs,
                }
            },
        }
    }
    # JSON is valid YAML.
    (project / "profiles.yml").write_text(json.dumps(profile, indent=2))
    return {"project": str(project), **confs}


def _dbt(project: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_USE_COLORS": "false"}
    cmd = [DBT, *args, "--project-dir", project, "--profiles-dir", project]
    return subprocess.run(
        cmd, cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False
    )


_READ_BACK = textwrap.dedent(
    """
    import json, sys
    from pyspark.sql import SparkSession

    confs = json.loads(sys.argv[1])
    builder = SparkSession.builder.enableHiveSupport()
    for k, v in confs.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    out = {}
    for name in ("sql_model", "py_model"):
        table = f"{confs['schema']}.{name}"
        out[name] = [r.asDict() for r in spark.table(table).orderBy("id").collect()]
        desc = spark.sql(f"describe table extended {table}").collect()
        out[name + "_provider"] = [r.data_type for r in desc if r.col_name == "Provider"]
    print("RESULT=" + json.dumps(out))
    spark.stop()
    """
)


def _read_back(confs: Dict[str, str], cwd: str) -> Dict[str, List[Any]]:
    """Read the tables with a fresh SparkSession after dbt has exited (Derby is single-process)."""
    proc = subprocess.run(
        [sys.executable, "-c", _READ_BACK, json.dumps({**confs, "schema": SCHEMA})],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT="))
    return json.loads(line[len("RESULT=") :])


def test_e2e_python_model_runs_in_local_session_and_writes_parquet_table(
    tmp_path: Path,
) -> None:
    """`dbt build` with type sparkpy/method session materializes a Python model locally."""
    cfg = _write_project(tmp_path)
    project = cfg.pop("project")

    build = _dbt(project, "build", "--exclude", "failing_py_model")
    assert build.returncode == 0, build.stdout + build.stderr

    run_results = json.loads((Path(project) / "target" / "run_results.json").read_text())
    statuses = {r["unique_id"]: r["status"] for r in run_results["results"]}
    assert statuses == {
        "model.sparkpy_e2e.sql_model": "success",
        "model.sparkpy_e2e.py_model": "success",
    }

    # The failing model's exception reaches dbt as an error with the model traceback.
    failing = _dbt(project, "run", "--select", "failing_py_model")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "sparkpy-e2e-deliberate-failure" in failing.stdout
    assert "failed with traceback" in failing.stdout
    assert "in model" in failing.stdout
    assert "python_submissions.py" not in failing.stdout

    result = _read_back(cfg, cwd=project)
    expected_sql = [
        {"id": 1, "name": "a", "impl": "spark"},
        {"id": 2, "name": "b", "impl": "spark"},
        {"id": 3, "name": "c", "impl": "spark"},
    ]
    assert result["sql_model"] == expected_sql
    assert result["py_model"] == [{**row, "doubled": row["id"] * 2} for row in expected_sql]
    assert result["sql_model_provider"] == ["parquet"]
    assert result["py_model_provider"] == ["parquet"]

    # Data files really live in the profile's warehouse dir as parquet.
    table_dir = Path(cfg["spark.sql.warehouse.dir"]) / f"{SCHEMA}.db" / "py_model"
    assert list(table_dir.glob("*.parquet")), sorted(p.name for p in table_dir.iterdir())
