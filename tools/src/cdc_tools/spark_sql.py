"""Spark SQL text the tools and tests write."""

from __future__ import annotations


def string_literal(text: str) -> str:
    """Spark SQL's literal of the text (Spark reads backslash escapes in a quoted string)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
