"""dbt plugin entry point for adapter type ``sparkpy`` (extends dbt-spark)."""

from dbt.adapters.base import AdapterPlugin
from dbt.adapters.sparkpy.connections import SparkpyConnectionManager, SparkpyCredentials
from dbt.adapters.sparkpy.impl import SparkpyAdapter
from dbt.include import sparkpy

Plugin = AdapterPlugin(
    adapter=SparkpyAdapter,  # type: ignore[arg-type]
    credentials=SparkpyCredentials,
    include_path=sparkpy.PACKAGE_PATH,
    dependencies=["spark"],
)

__all__ = ["Plugin", "SparkpyAdapter", "SparkpyConnectionManager", "SparkpyCredentials"]
