"""The ``sparkpy`` adapter: dbt-spark plus an in-process/Spark Connect Python runner."""

from typing import Any, Dict, Type

from dbt.adapters.base import PythonJobHelper, available
from dbt.adapters.spark import SparkAdapter
from dbt.adapters.spark.connections import SparkConnectionMethod
from dbt.adapters.sparkpy.connections import SparkpyConnectionManager
from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper


class SparkpyAdapter(SparkAdapter):
    """SparkAdapter whose Python models can run outside Databricks."""

    ConnectionManager = SparkpyConnectionManager

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._values_once: Dict[str, Any] = {}

    @property
    def python_submission_helpers(self) -> Dict[str, Type[PythonJobHelper]]:
        return {**super().python_submission_helpers, "session": SessionPythonJobHelper}

    @property
    def default_python_submission_method(self) -> str:
        """``session`` when there is a Spark to reach without Databricks."""
        creds = self.config.credentials
        if creds.method == SparkConnectionMethod.SESSION or getattr(creds, "connect_url", None):
            return "session"
        return super().default_python_submission_method

    @available
    def query_value_once(self, sql: str) -> Any:
        """The first value of `sql`'s first row, queried once per dbt invocation: for values
        that hold during a run, asked by every node that compiles (the Spark version the JSON
        macros pick their forms by, when the data tests last passed)."""
        if sql not in self._values_once:
            _, table = self.execute(sql, fetch=True)
            self._values_once[sql] = table.rows[0][0]
        return self._values_once[sql]
