"""The `databricks` target cannot run here (no workspace): prove that the project parses and
compiles for it and that what differs by target follows the target (Delta everywhere)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DBT = REPO / ".venv" / "bin" / "dbt"


def test_project_compiles_for_databricks_without_a_workspace(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    shutil.copy(REPO / "profiles.yml", profiles / "profiles.yml")
    target = tmp_path / "target"
    # --no-introspect: no queries, so no workspace. dbt-core's Python model compilation asks the
    # warehouse whether the model exists (is_incremental), so Python models are only parsed.
    python_models = sorted(path.stem for path in (REPO / "models").rglob("*.py"))
    result = subprocess.run(
        [
            str(DBT),
            "compile",
            "--target",
            "databricks",
            "--no-introspect",
            "--no-populate-cache",
            "--exclude",
            *python_models,
            "--profiles-dir",
            str(profiles),
            "--target-path",
            str(target),
            "--log-path",
            str(tmp_path / "logs"),
        ],
        cwd=REPO,
        env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:]

    manifest = json.loads((target / "manifest.json").read_text())
    nodes = [n for n in manifest["nodes"].values() if n["resource_type"] in {"model", "seed"}]
    assert {n["config"]["file_format"] for n in nodes} == {"delta"}
    # Incremental models append the rows they do not hold; dim_row_versions and
    # int_row_change_columns merge on their keys.
    incremental = [n for n in nodes if n["config"].get("materialized") == "incremental"]
    assert len(incremental) >= 10
    merged = {"dim_row_versions", "int_row_change_columns"}
    assert {n["name"]: n["config"]["incremental_strategy"] for n in incremental} == {
        n["name"]: "merge" if n["name"] in merged else "append" for n in incremental
    }
    assert all(n["config"]["unique_key"] for n in incremental)
    sql_models = [n for n in nodes if n["resource_type"] == "model" and n.get("language") == "sql"]
    assert len(sql_models) >= 15
    for node in sql_models:
        compiled = target / "compiled" / "cdc_lakehouse" / node["original_file_path"]
        assert compiled.is_file(), node["unique_id"]
        assert "{{" not in compiled.read_text(), node["unique_id"]
    # base_kafka__reads runs only with landing_source kafka.
    disabled = [n["name"] for [n] in manifest["disabled"].values() if n.get("language") == "python"]
    assert disabled == ["base_kafka__reads"]
    assert sorted([n["name"] for n in nodes if n.get("language") == "python"] + disabled) == python_models
