"""dbt-spark's ``session`` connection, with seed values rendered as proper SQL literals."""

from typing import Any, Union

from dbt.adapters.spark.session import SessionConnectionWrapper


class SparkpySessionConnectionWrapper(SessionConnectionWrapper):
    """dbt-spark renders a binding as ``'<value>'``: a seed's empty cell becomes the text
    'None' and a quote inside a value breaks the statement. Render NULL and escaped strings."""

    @classmethod
    def _fix_binding(cls, value: Any) -> Union[str, float]:
        if value is None:
            return "NULL"
        if isinstance(value, str):
            escaped = value.replace("\\", "\\\\").replace("'", "\\'")
            return f"'{escaped}'"
        return super()._fix_binding(value)
