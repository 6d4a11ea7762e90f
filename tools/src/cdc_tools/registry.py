"""The formats the dbt project reads, as its registry declares them once: var `cdc_formats` in
dbt_project.yml. The landing tables, the stacked staging, reconciliation and these tools' tests
follow it; each format has a staging folder, a macro file, samples and a generator encoder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Format:
    """A registry entry: `ddl`, the format carries schema changes; `lines`, the glob of the files
    holding its messages a line each (all files when None); `containers`, the glob of its binary
    Avro object container files (None for a text-only format); `identity`, how a change is told
    from a redelivered copy (`position`, `content` or `text`); `binary`, its types say which
    columns hold bytes and it stages them as their ISO-8859-1 text; `whole_schema`, its types list
    every column its table has at the change."""

    name: str
    ddl: bool
    lines: str | None = None
    containers: str | None = None
    identity: str = "text"
    binary: bool = False
    whole_schema: bool = False


def _entries(project_dir: Path) -> dict[str, dict[str, Any]]:
    return yaml.safe_load((project_dir / "dbt_project.yml").read_text())["vars"]["cdc_formats"]


def project_formats(project_dir: Path) -> dict[str, Format]:
    """The registry of the dbt project in `project_dir`, in its order."""
    return {name: Format(name, **entry) for name, entry in _entries(project_dir).items()}


def reading_only(project_dir: Path, *names: str) -> dict[str, Any]:
    """The dbt vars of the project in `project_dir` reading only the formats `names`: its
    registry (var `cdc_formats`) with their entries alone. The other formats' models are
    left out of its builds."""
    entries = _entries(project_dir)
    return {"cdc_formats": {name: entries[name] for name in names}}
