"""Unit tests of the ``sparkpy`` adapter: its credentials, submission method choice, seed
bindings, and the ``session`` submission method exec'ing model code on a real in-process
SparkSession (nothing under test is mocked)."""

from __future__ import annotations

import multiprocessing
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict

import pytest
from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.python_submissions import AllPurposeClusterPythonJobHelper
from dbt.adapters.sparkpy import Plugin
from dbt.adapters.sparkpy.connections import SparkpyConnectionManager, SparkpyCredentials
from dbt.adapters.sparkpy.impl import SparkpyAdapter
from dbt.adapters.sparkpy.preflight import check_metastore_free, derby_folder, java_version, required_java
from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper
from dbt.adapters.sparkpy.session import SparkpySessionConnectionWrapper
from dbt_common.exceptions import DbtRuntimeError
from pyspark.sql import SparkSession


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


def test_the_poll_interval_may_be_a_fraction_of_a_second() -> None:
    fields = {"method": "thrift", "host": "localhost", "schema": "unit"}
    SparkpyCredentials.validate({**fields, "poll_interval": 0.2})  # dbt-spark's is an integer
    assert SparkpyCredentials.from_dict({**fields, "poll_interval": 0.2}).poll_interval == 0.2
    assert SparkpyCredentials.from_dict(fields).poll_interval == 1.0


def _adapter(creds: SparkpyCredentials) -> SparkpyAdapter:
    # The adapter only reads `config.credentials` / `log_cache_events` / `threads` here.
    config = SimpleNamespace(credentials=creds, log_cache_events=False, threads=2)
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


def test_a_query_runs_once_per_run() -> None:
    adapter = _adapter(_creds())
    asked = []

    def execute(sql: str, fetch: bool = False) -> tuple[None, SimpleNamespace]:
        asked.append((sql, fetch))
        rows = [] if sql == "show functions like 'none'" else [(f"value of {sql}", "second column")]
        return None, SimpleNamespace(rows=rows)

    adapter.execute = execute  # type: ignore[method-assign]
    assert adapter.query_rows_once("select version()") == [("value of select version()", "second column")]
    assert adapter.query_rows_once("show functions like 'none'") == []
    assert adapter.query_rows_once("select version()") == [("value of select version()", "second column")]
    assert adapter.query_rows_once("show functions like 'none'") == []
    assert asked == [("select version()", True), ("show functions like 'none'", True)]


def test_batches_run_in_order_side_by_side(spark: SparkSession) -> None:
    adapter = _adapter(_creds())
    # Each batch's first statement waits for the other's: one after another, it would time out.
    both_started = threading.Barrier(2, timeout=60)
    execute = adapter.execute

    def first_waits_for_the_other(sql: str, **kwargs: Any) -> Any:
        if sql.startswith("create"):
            both_started.wait()
        return execute(sql, **kwargs)

    adapter.execute = first_waits_for_the_other  # type: ignore[method-assign]
    spark.sql("create schema if not exists side")
    with adapter.connection_named("model.probe"):
        adapter.run_side_by_side(
            [
                [
                    "create table side.a (x int) using parquet",
                    "insert into side.a values (1)",
                    "insert into side.a values (2)",
                ],
                ["create table side.b (x int) using parquet", "insert into side.b select x * 10 from side.b"],
            ]
        )
        with pytest.raises(DbtRuntimeError, match="TABLE_OR_VIEW_NOT_FOUND"):
            adapter.run_side_by_side([["insert into side.a values (3)"], ["select * from side.missing"]])
    assert sorted(r.x for r in spark.table("side.a").collect()) == [1, 2, 3]
    assert spark.table("side.b").count() == 0
    # The side connections are gone with their threads; the node's own is left.
    assert [c.name for c in adapter.connections.thread_connections.values()] == ["model.probe"]


def test_ansi_mode_is_off_unless_the_profile_turns_it_on() -> None:
    # dbt-spark forces it off; a profile may run as Spark 4 and Databricks SQL do by default.
    assert _creds().server_side_parameters["spark.sql.ansi.enabled"] == "false"
    ansi = _creds(ansi_mode=True, server_side_parameters={"spark.sql.ansi.enabled": "false"})
    assert ansi.server_side_parameters["spark.sql.ansi.enabled"] == "true"


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


def test_a_connection_gives_the_running_session_the_profiles_sql_settings_once(spark: SparkSession) -> None:
    # As a second dbt invocation in the same process, with another profile (ANSI mode on).
    parameters = {"spark.sql.shuffle.partitions": "7", "spark.master": "local[3]"}
    creds = _creds(ansi_mode=True, server_side_parameters=parameters)
    connection = SparkpyConnectionManager.open(
        Connection(type="sparkpy", name="t", credentials=creds, state=ConnectionState.INIT)
    )
    try:
        assert spark.conf.get("spark.sql.ansi.enabled") == "true"
        assert spark.conf.get("spark.sql.shuffle.partitions") == "7"
        assert spark.conf.get("spark.master") == "local[1]"  # only a new session takes it
        # Statements run on that session as it is, and another connection of the same profile
        # (another dbt thread's) does not give them again: what a hook set stays set.
        spark.conf.set("spark.sql.shuffle.partitions", "2")
        handle = connection.handle.cursor()
        handle.execute("create or replace temporary view sparkpy_statement as select 42 as answer")
        handle.execute("select answer from sparkpy_statement")  # a temp view: the same session
        assert [tuple(row) for row in handle.fetchall()] == [(42,)]
        SparkpyConnectionManager.open(
            Connection(type="sparkpy", name="u", credentials=creds, state=ConnectionState.INIT)
        )
        assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "false")
        spark.conf.set("spark.sql.shuffle.partitions", "1")


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


def test_a_submission_method_set_to_none_is_the_default(spark: SparkSession) -> None:
    # A project sets it for dbt-databricks only; Jinja gives none on this adapter.
    code = 'spark.range(3).createOrReplaceTempView("sparkpy_default_method")'
    parsed_model = {"alias": "probe_model", "schema": "unit", "config": {"submission_method": None}}
    adapter = _adapter(_creds())
    with adapter.connection_named("probe_model"):
        adapter.submit_python_job(parsed_model, code)
    assert spark.table("sparkpy_default_method").count() == 3


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


def test_java_versions_are_read_from_java_itself() -> None:
    java = shutil.which("java")
    assert java is not None
    assert java_version(java) >= required_java()


def test_the_derby_folder_is_read_from_either_spelling_of_the_metastore_url() -> None:
    url = "jdbc:derby:;databaseName=/w/.spark/metastore_db;create=true"
    assert derby_folder({"javax.jdo.option.ConnectionURL": url}) == Path("/w/.spark/metastore_db")
    assert derby_folder({"spark.hadoop.javax.jdo.option.ConnectionURL": url}) == Path("/w/.spark/metastore_db")
    assert derby_folder({"spark.master": "local[2]"}) is None


def test_a_metastore_another_process_holds_is_refused_by_name(tmp_path: Path) -> None:
    """Another process holds `dbex.lck` as Derby does (an exclusive fcntl lock): refused; once it
    lets go, free."""
    folder = tmp_path / "metastore_db"
    folder.mkdir()
    (folder / "dbex.lck").write_bytes(b"")
    parameters = {"javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={folder};create=true"}
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'rb+'); fcntl.lockf(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(folder / "dbex.lck"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(DbtRuntimeError, match=f"metastore {folder} is open in another process"):
            check_metastore_free(parameters)
    finally:
        holder.communicate("")
    check_metastore_free(parameters)
