"""dbt unit-test fixtures made from the samples, so that a sample is written once.

A unit test whose landed lines are a sample file names the fixture `sample__<format>__<stem>`
(`given: [{input: source('<format>', 'landed_lines'), format: sql, fixture: ...}]`); this writes
`tests/dbt/fixtures/<format>/sample__<format>__<stem>.sql` from
`samples/landing/<format>/<stem>.jsonl`, one row per line, and removes those no test names.
Run from the repo root after changing a sample or a test: `.venv/bin/python -m cdc_tools.sample_fixtures`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cdc_tools.spark_sql import string_literal

PREFIX = "sample__"
NAMED = re.compile(rf"fixture: ({PREFIX}([a-z0-9_]+?)__([A-Za-z0-9_.-]+))\s*$", re.MULTILINE)


def fixture_sql(sample: Path, repo: Path) -> str:
    """The landing source's rows for every line of the sample, as a dbt SQL fixture."""
    lines = sample.read_text(encoding="utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    path = string_literal(sample.relative_to(repo).as_posix())
    rows = ",\n".join(f"    ({path}, {number}, {string_literal(line)})" for number, line in enumerate(lines, 1))
    sql = (
        f"-- Written by cdc_tools.sample_fixtures from {sample.relative_to(repo).as_posix()}: do not edit.\n"
        "select\n"
        "    file_path, line_number, payload,\n"
        "    cast(null as timestamp) as landed_at, cast(null as string) as record_key\n"
        "from values\n"
        f"{rows}\n"
        "    as lines(file_path, line_number, payload)\n"
    )
    # A fixture is rendered as Jinja: a sample's text is not.
    return "{% raw %}\n" + sql + "{% endraw %}\n" if re.search(r"{[{%#]", sql) else sql


def wanted(repo: Path) -> dict[Path, str]:
    """Each sample fixture a unit test names, by its path, with its text."""
    fixtures = {}
    for tests in repo.glob("models/**/_*__unit_tests.yml"):
        for name, format_name, stem in NAMED.findall(tests.read_text()):
            sample = repo / "samples" / "landing" / format_name / f"{stem}.jsonl"
            fixtures[repo / "tests" / "dbt" / "fixtures" / format_name / f"{name}.sql"] = fixture_sql(sample, repo)
    return fixtures


def stale(repo: Path) -> list[Path]:
    """The sample fixtures that differ from what their samples give, or that no test names."""
    fixtures = wanted(repo)
    present = set(repo.glob(f"tests/dbt/fixtures/*/{PREFIX}*.sql"))
    return sorted(
        {path for path, text in fixtures.items() if not path.exists() or path.read_text() != text}
        | (present - set(fixtures))
    )


def write(repo: Path) -> None:
    fixtures = wanted(repo)
    for path in repo.glob(f"tests/dbt/fixtures/*/{PREFIX}*.sql"):
        if path not in fixtures:
            path.unlink()
    for path, text in fixtures.items():
        path.write_text(text)


if __name__ == "__main__":
    write(Path.cwd())
