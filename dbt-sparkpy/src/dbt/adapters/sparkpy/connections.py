"""Credentials and connection manager for the ``sparkpy`` adapter type.

SQL still goes through dbt-spark's connection methods unchanged. Three additions:
``connect_url``, which routes Python models to a Spark Connect server instead of
Databricks, ``ansi_mode``, which keeps Spark's ANSI SQL mode on where dbt-spark
turns it off, and a ``poll_interval`` in fractions of a second.
"""

import os
import sys
from dataclasses import dataclass
from typing import Optional, Tuple

from dbt.adapters.contracts.connection import Connection
from dbt.adapters.spark.connections import SparkConnectionManager, SparkConnectionMethod, SparkCredentials


@dataclass
class SparkpyCredentials(SparkCredentials):
    """dbt-spark credentials plus an optional Spark Connect URL for Python models, a switch
    for ANSI mode and a poll interval that may be a fraction."""

    # e.g. "sc://localhost:15002"; unset means "run Python models in this process".
    connect_url: Optional[str] = None
    # dbt-spark sends spark.sql.ansi.enabled=false with every session; true sends true, the
    # default of Spark 4 and of Databricks SQL warehouses, so a project can be run as there.
    ansi_mode: bool = False
    # Seconds between two polls of a statement still running (thrift and http methods). dbt-spark
    # takes whole seconds, 5 by default: each statement that outlives its first poll ends on
    # a multiple of that.
    poll_interval: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.server_side_parameters["spark.sql.ansi.enabled"] = str(self.ansi_mode).lower()

    @property
    def type(self) -> str:
        return "sparkpy"

    def _connection_keys(self) -> Tuple[str, ...]:
        return super()._connection_keys() + ("method", "connect_url", "ansi_mode")


class SparkpyConnectionManager(SparkConnectionManager):
    """dbt-spark's connection manager registered under our own adapter type."""

    TYPE = "sparkpy"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        # Python functions of Python models (Arrow batches, e.g. binary Avro decoding) run in
        # Spark's Python workers, which must have this venv's packages; PySpark would otherwise
        # start `python3` from PATH. Set before dbt-spark's session method starts Spark.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        # pandas-on-Spark warns on import unless told, and the session method's Spark in local
        # mode needs no address but loopback (Spark warns when the host name resolves to it).
        os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")
        master = str(connection.credentials.server_side_parameters.get("spark.master", ""))
        if connection.credentials.method == SparkConnectionMethod.SESSION and master.startswith("local"):
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        connection = super().open(connection)
        # Imported here, as dbt-spark does: only the session method needs pyspark at this point.
        from dbt.adapters.spark.session import SessionConnectionWrapper
        from dbt.adapters.sparkpy.session import SparkpySessionConnectionWrapper, apply_sql_settings

        if isinstance(connection.handle, SessionConnectionWrapper):
            connection.handle = SparkpySessionConnectionWrapper(connection.handle.handle)
            apply_sql_settings(connection.credentials.server_side_parameters)
        return connection
