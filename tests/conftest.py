"""Fixtures of both pytest suites, tests/unit and tests/integration (defined in tests/support)."""

from support.spark_session import spark

__all__ = ["spark"]
