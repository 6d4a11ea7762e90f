"""The explicit message schemas the staging models parse payloads with, for the floor job.

A JSON format's schemas are dbt macros in `macros/staging/<format>/` named `<format>_*schema`
and taking no arguments (`canal_json_message_schema`, `debezium_json_envelope_schema`, ...):
they are rendered by one `dbt compile --inline`, so the floor parses with exactly the text the
models use. A format whose schema is Python instead (the Avro formats decode in Python models)
names it `MESSAGE_SCHEMA` (Spark DDL) in `cdc_lakehouse.avro.<format>`.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

_MACRO = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(\s*\)")


def schema_macros(project_dir: Path, format_name: str) -> list[str]:
    """The format's argument-less `<format>_*schema` macros, sorted by name."""
    folder = project_dir / "macros" / "staging" / format_name
    names = {
        name
        for path in folder.glob("*.sql")
        for name in _MACRO.findall(path.read_text())
        if name.startswith(f"{format_name}_") and name.endswith("schema")
    }
    return sorted(names)


def inline_template(macros: Mapping[str, list[str]]) -> str:
    """A dbt inline query that prints {format: [rendered schema, ...]} as JSON."""
    entries = ", ".join(
        f"{json.dumps(name)}: [" + ", ".join(f"{macro}()" for macro in names) + "]" for name, names in macros.items()
    )
    return "{{ tojson({" + entries + "}) }}"


def python_schema(format_name: str) -> str | None:
    """`MESSAGE_SCHEMA` of `cdc_lakehouse.avro.<format>`, when that module exists."""
    try:
        module = importlib.import_module(f"cdc_lakehouse.avro.{format_name}")
    except ImportError:
        return None
    schema = getattr(module, "MESSAGE_SCHEMA", None)
    return schema if isinstance(schema, str) else None


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
    result = {}
    for name in formats:
        schemas = rendered.get(name) or []
        if not schemas and (schema := python_schema(name)) is not None:
            schemas = [schema]
        result[name] = schemas
    return result
