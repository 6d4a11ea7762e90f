"""Run dbt Python models against a plain SparkSession instead of Databricks.

dbt-spark's ``py_write_table`` wraps the model in code that expects a global
``spark`` and ends in ``df.write...saveAsTable(...)``; all we must do is exec
that code with ``spark`` bound to the right session.
"""

import linecache
import traceback
from types import TracebackType
from typing import TYPE_CHECKING, Any, Dict, Optional

from dbt.adapters.base import PythonJobHelper
from dbt.adapters.sparkpy.connections import SparkpyCredentials
from dbt_common.exceptions import DbtRuntimeError

if TYPE_CHECKING:  # pyspark is imported lazily: non-session targets don't need it.
    from pyspark.sql import SparkSession


class SessionPythonJobHelper(PythonJobHelper):
    """Exec compiled Python models in the dbt process (or via Spark Connect)."""

    def __init__(self, parsed_model: Dict[str, Any], credentials: SparkpyCredentials) -> None:
        self.parsed_model = parsed_model
        self.credentials = credentials
        self.identifier = f"{parsed_model.get('schema')}.{parsed_model.get('alias')}"

    def _session(self) -> "SparkSession":
        """Spark Connect if configured, else the session dbt-spark's SQL uses."""
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        connect_url = getattr(self.credentials, "connect_url", None)
        if connect_url:
            if SparkContext._active_spark_context is not None:
                # PySpark refuses Connect next to a classic JVM session (SESSION_ALREADY_EXIST).
                raise DbtRuntimeError(
                    "connect_url is set but a local (classic) SparkSession already runs in "
                    "this dbt process, e.g. from `method: session`; PySpark cannot mix the "
                    "two. Use `method: thrift` with connect_url, or drop connect_url."
                )
            return SparkSession.builder.remote(connect_url).getOrCreate()
        # The session the SQL models use, so a Python model that runs first still gets the
        # profile's warehouse/metastore settings.
        from dbt.adapters.sparkpy.session import local_session

        return local_session(self.credentials.server_side_parameters or {})

    def submit(self, compiled_code: str) -> None:
        """Exec the model; any exception becomes a DbtRuntimeError with its traceback."""
        try:
            spark = self._session()
        except DbtRuntimeError:
            raise
        except Exception as exc:
            raise DbtRuntimeError(f"No SparkSession for Python model {self.identifier}: {exc}") from exc
        filename = f"<dbt python model {self.identifier}>"
        # Registering the source lets the traceback show the model's own lines.
        lines = compiled_code.splitlines(keepends=True)
        linecache.cache[filename] = (len(compiled_code), None, lines, filename)
        try:
            code = compile(compiled_code, filename, "exec")
            exec(code, {"__name__": "__dbt_python_model__", "spark": spark})
        except Exception as exc:
            tb = _from_frame(exc.__traceback__, filename)
            raise DbtRuntimeError(
                f"Python model {self.identifier} failed with traceback as:\n"
                + "".join(traceback.format_exception(type(exc), exc, tb))
            ) from exc
        finally:
            linecache.cache.pop(filename, None)


def _from_frame(tb: Optional[TracebackType], filename: str) -> Optional[TracebackType]:
    """Drop this module's frames so the traceback starts in the model code."""
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != filename:
        start = start.tb_next
    return start or tb
