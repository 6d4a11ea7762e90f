"""The ``sparkpy`` adapter: dbt-spark plus an in-process/Spark Connect Python runner."""

from typing import Dict, Optional, Type

from dbt.adapters.base import PythonJobHelper, available
from dbt.adapters.spark import SparkAdapter
from dbt.adapters.spark.connections import SparkConnectionMethod

from dbt.adapters.sparkpy.connections import SparkpyConnectionManager
from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper


class SparkpyAdapter(SparkAdapter):
    """SparkAdapter whose Python models can run outside Databricks."""

    ConnectionManager = SparkpyConnectionManager
    _spark_version: Optional[str] = None

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
    def spark_version(self) -> str:
        """The target's Spark version (`select version()`), asked once per run: the JSON macros
        pick their Spark 3.5 forms by it (macro `spark_supports_variant`)."""
        if self._spark_version is None:
            _, table = self.execute("select version()", fetch=True)
            self._spark_version = str(table.rows[0][0])
        return self._spark_version
