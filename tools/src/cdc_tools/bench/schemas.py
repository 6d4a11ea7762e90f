"""The explicit message schemas the staging models parse payloads with, for the floor job.

A format's schema is the argument-less dbt macro `<format>_message_schema` of
`macros/formats/<format>/<format>.sql` (a format's other `*_schema` macros are pieces of it): they are
rendered by one `dbt compile --inline`, so the floor parses with exactly the text the models use.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

_MACRO = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(\s*\)")


def schema_macros(project_dir: Path, format_name: str) -> list[str]:
    """The format's argument-less `<format>_message_schema` macro, if it has one."""
    path = project_dir / "macros" / "formats" / format_name / f"{format_name}.sql"
    defined = _MACRO.findall(path.read_text()) if path.exists() else []
    return [name for name in defined if name == f"{format_name}_message_schema"]


def inline_template(macros: Mapping[str, list[str]]) -> str:
    """A dbt inline query that prints {format: [rendered schema, ...]} as JSON."""
    entries = ", ".join(
        f"{json.dumps(name)}: [" + ", ".join(f"{macro}()" for macro in names) + "]" for name, names in macros.items()
    )
    return "{{ tojson({" + entries + "}) }}"


def render_schemas(
    dbt: Path, project_dir: Path, formats: Iterable[str], env: Mapping[str, str], work_dir: Path
) -> dict[str, list[str]]:
    """Each format's message schemas as Spark DDL; an empty list for a format with none."""
    formats = list(formats)
    macros = {name: schema_macros(project_dir, name) for name in formats}
    rendered: dict[str, list[str]] = {}
    if any(macros.values()):
        done = subprocess.run(
            [
                str(dbt),
                "compile",
                "--no-introspect",
                "--quiet",
                "--inline",
                inline_template({k: v for k, v in macros.items() if v}),
                "--target-path",
                str(work_dir / "target"),
                "--log-path",
                str(work_dir / "logs"),
            ],
            cwd=project_dir,
            env=dict(env),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"rendering the schema macros failed:\n{done.stdout}\n{done.stderr}")
        rendered = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: rendered.get(name) or [] for name in formats}
