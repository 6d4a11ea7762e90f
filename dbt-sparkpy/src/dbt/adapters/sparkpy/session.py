"""dbt-spark's ``session`` connection on one SparkSession built once, with seed values rendered
as proper SQL literals. Imported only where the session method runs: it needs pyspark."""

from typing import Any, Dict, Mapping, Union

from dbt.adapters.spark.session import Cursor, SessionConnectionWrapper
from dbt.adapters.sparkpy.preflight import check_java, check_metastore_free
from dbt_common.exceptions import DbtRuntimeError
from pyspark import SparkContext
from pyspark.sql import SparkSession
from pyspark.sql.utils import AnalysisException

# The profile's parameters the running session was last given (by its start or by
# `apply_sql_settings`).
_given: Dict[str, str] = {}


def local_session(server_side_parameters: Mapping[str, Any]) -> SparkSession:
    """The process's SparkSession: built with the profile's parameters the first time (Java and
    the metastore checked first: `preflight`), then taken as it is. Passing them to the builder
    again (dbt-spark does it for every statement) changes nothing a running session can change,
    and Spark logs a warning each time."""
    if SparkContext._active_spark_context is not None:
        return SparkSession.builder.getOrCreate()
    check_java()
    check_metastore_free(server_side_parameters)
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in server_side_parameters.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    _given.clear()
    _given.update(_as_text(server_side_parameters))
    return session


def apply_sql_settings(server_side_parameters: Mapping[str, Any]) -> None:
    """Gives a running SparkSession another profile's settings that a running session can
    change (SQL settings, ANSI mode among them): a session an earlier dbt invocation in this
    process started (dbt's programmatic runner) would otherwise keep that invocation's. The
    others (master, memory, class path, warehouse) stay as the session started. Parameters it
    was already given are not given again, so that what a hook set stays set."""
    wanted = _as_text(server_side_parameters)
    if SparkContext._active_spark_context is None or wanted == _given:
        return
    spark = SparkSession.builder.getOrCreate()
    for key, value in wanted.items():
        if spark.conf.isModifiable(key) and spark.conf.get(key, None) != value:
            spark.conf.set(key, value)
    _given.clear()
    _given.update(wanted)


def _as_text(server_side_parameters: Mapping[str, Any]) -> Dict[str, str]:
    return {key: str(value) for key, value in server_side_parameters.items()}


class SparkpyCursor(Cursor):
    """dbt-spark's cursor, running its statements on `local_session`."""

    def execute(self, sql: str, *parameters: Any) -> None:
        if parameters:
            sql = sql % parameters
        try:
            self._df = local_session(self.server_side_parameters).sql(sql)
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc


class SparkpySessionConnectionWrapper(SessionConnectionWrapper):
    """Statements through `SparkpyCursor`. dbt-spark renders a binding as ``'<value>'``: a
    seed's empty cell becomes the text 'None' and a quote inside a value breaks the statement.
    Render NULL and escaped strings."""

    def cursor(self) -> "SparkpySessionConnectionWrapper":
        self._cursor = SparkpyCursor(server_side_parameters=self.handle.server_side_parameters)
        return self

    @classmethod
    def _fix_binding(cls, value: Any) -> Union[str, float]:
        if value is None:
            return "NULL"
        if isinstance(value, str):
            escaped = value.replace("\\", "\\\\").replace("'", "\\'")
            return f"'{escaped}'"
        return super()._fix_binding(value)
