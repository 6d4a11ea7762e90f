"""The in-process SparkSession fixture shared by the unit and integration suites.

One SparkSession serves the whole pytest run (a JVM holds one SparkContext). It has no Hive
support, so it never opens a Derby metastore: the integration tests read the marts that dbt
wrote in the worker process that ran dbt (see dbt_worker.py), the one JVM that may open that
warehouse's Derby metastore.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """A small local SparkSession for fast unit tests (no Hive, no UI, one shuffle partition)."""
    warehouse = tmp_path_factory.mktemp("pytest_spark_warehouse")
    # Python workers (mapInArrow) need this venv's packages, not `python3` from PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # As the dbt profile's local target (profiles.yml): `make test` runs expressions interpreted.
    codegen = os.environ.get("CDC_SPARK_CODEGEN", "true") != "false"
    session = (
        SparkSession.builder.master("local[1]")
        .appName("cdc-lakehouse-pytest")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.codegen.wholeStage", str(codegen).lower())
        .config("spark.sql.codegen.factoryMode", "FALLBACK" if codegen else "NO_CODEGEN")
        # Keeps spark-warehouse/ out of the working directory.
        .config("spark.sql.warehouse.dir", str(warehouse))
        .getOrCreate()
    )
    yield session
    session.stop()
