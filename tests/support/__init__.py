"""Support code of the project's pytest suites (tests/unit, tests/integration): the dbt build
harness, the hostile-input mutations and the shared SparkSession fixture. Importable as
`support.<module>`: pytest puts tests/ on the path (pyproject's `pythonpath`)."""
