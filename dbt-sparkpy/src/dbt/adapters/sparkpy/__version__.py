"""Version dbt's adapter factory reads (``dbt.adapters.<type>.__version__.version``)."""

version: str = "0.1.0"
