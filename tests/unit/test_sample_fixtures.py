"""The unit tests' fixtures made from samples are the samples, line for line."""

from __future__ import annotations

from pathlib import Path

from cdc_tools.sample_fixtures import fixture_sql, stale
from cdc_tools.spark_sql import string_literal

REPO = Path(__file__).resolve().parents[2]


def test_every_sample_fixture_is_its_sample_and_is_used() -> None:
    """Run `.venv/bin/python -m cdc_tools.sample_fixtures` when this fails."""
    assert stale(REPO) == []


def test_a_line_is_kept_as_landed(tmp_path: Path) -> None:
    sample = tmp_path / "samples" / "x.jsonl"
    sample.parent.mkdir()
    sample.write_text('{"a":"it\'s \\"q\\" {{ x }}"}\n\n', encoding="utf-8")
    sql = fixture_sql(sample, tmp_path)
    assert sql.startswith("{% raw %}\n") and sql.endswith("{% endraw %}\n")
    assert string_literal('{"a":"it\'s \\"q\\" {{ x }}"}') in sql
    assert "('samples/x.jsonl', 2, '')" in sql
    assert string_literal("a\\b'c") == "'a\\\\b\\'c'"
