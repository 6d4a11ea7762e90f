"""Fixtures of both pytest suites, tests/unit and tests/integration (defined in tests/support)."""

from support.compiled_models import compiled
from support.dbt_harness import shared_worker
from support.spark_session import spark

__all__ = ["compiled", "shared_worker", "spark"]
