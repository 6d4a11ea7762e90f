"""The project as dbt-databricks compiles it for the `databricks_uc` target, without a workspace.

Runs in its own venv (`make test-databricks`): dbt-databricks pins dbt-core and dbt-spark
versions of its own. `--no-introspect --no-populate-cache` send no query; the one question dbt
still asks while compiling (does the model's relation exist: `is_incremental()`, a Python model's
write) is answered "no", as an empty catalog would: the first build's SQL.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from dbt.adapters.databricks.impl import DatabricksAdapter
from dbt.adapters.databricks.python_models.python_config import ParsedPythonModel
from dbt.cli.main import dbtRunner

REPO = Path(__file__).resolve().parents[2]
CATALOG = "lakehouse"
SCHEMA = "cdc_uc"
ENV = {
    "DBT_TARGET": "databricks_uc",
    "DATABRICKS_CATALOG": CATALOG,
    "CDC_SCHEMA": SCHEMA,
    "DATABRICKS_HOST": "offline.cloud.databricks.com",
    "DATABRICKS_HTTP_PATH": "/sql/1.0/warehouses/offline",
    # Any token: without one the Databricks SDK waits for a browser login.
    "DATABRICKS_TOKEN": "offline",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
}


def _no_relation(self: DatabricksAdapter, *args: Any, **kwargs: Any) -> None:
    return None


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    work = tmp_path_factory.mktemp("databricks_uc")
    profiles = work / "profiles"
    profiles.mkdir()
    shutil.copy(REPO / "profiles.yml", profiles / "profiles.yml")
    target = work / "target"
    args = ["compile", "--no-introspect", "--no-populate-cache", "--project-dir", str(REPO)]
    args += ["--profiles-dir", str(profiles), "--target-path", str(target), "--log-path", str(work / "logs")]
    with mock.patch.dict(os.environ, ENV), mock.patch.object(DatabricksAdapter, "get_relation", _no_relation):
        result = dbtRunner().invoke(args)
    assert result.success, result.exception
    return target, json.loads((target / "manifest.json").read_text())


def _nodes(manifest: dict[str, Any], *resource_types: str) -> list[dict[str, Any]]:
    return [node for node in manifest["nodes"].values() if node["resource_type"] in resource_types]


def _compiled_code(target: Path, node: dict[str, Any]) -> str:
    return (target / "compiled" / "cdc_lakehouse" / node["original_file_path"]).read_text()


def test_every_model_and_seed_is_a_unity_catalog_table_of_three_part_name(compiled: tuple[Path, dict]) -> None:
    target, manifest = compiled
    nodes = _nodes(manifest, "model", "seed")
    assert len(nodes) >= 30
    for node in nodes:
        assert node["relation_name"] == f"`{CATALOG}`.`{SCHEMA}`.`{node['alias']}`", node["unique_id"]
    # References compile to the same names: the facts read the labelled row changes by catalog.
    facts = manifest["nodes"]["model.cdc_lakehouse.fct_row_changes"]
    assert f"`{CATALOG}`.`{SCHEMA}`.`int_row_changes_labelled`" in _compiled_code(target, facts)


def test_tables_are_delta_increments_append_and_row_versions_merge_on_their_key(compiled: tuple[Path, dict]) -> None:
    _, manifest = compiled
    nodes = _nodes(manifest, "model", "seed")
    assert {n["config"]["file_format"] for n in nodes} == {"delta"}
    incremental = [n for n in nodes if n["config"]["materialized"] == "incremental"]
    staged_messages = {n["name"] for n in _nodes(manifest, "model") if n["name"].startswith("stg_")}
    assert {n["name"] for n in incremental} == staged_messages | {
        "base_debezium_avro__container_records",
        "base_dts_avro__container_records",
        "base_oms_avro__binary_values",
        "base_oms_avro__container_records",
        "base_oms_avro__records",
        "int_messages",
        "int_row_changes_labelled",
        "int_schema_changes",
        "int_row_change_columns",
        "fct_row_changes",
        "fct_schema_changes",
        "fct_rejected_messages",
        "fct_message_reconciliation",
        "dim_row_versions",
        "fct_replica_changes",
    }
    for node in incremental:
        strategy = "merge" if node["name"] in {"dim_row_versions", "int_row_change_columns"} else "append"
        assert node["config"]["incremental_strategy"] == strategy, node["unique_id"]
        keys = node["config"]["unique_key"]
        keys = [keys] if isinstance(keys, str) else keys
        # The key is made of the model's documented columns.
        assert keys and set(keys) <= set(node["columns"]), (node["unique_id"], keys)


def test_facts_are_clustered_and_row_versions_partitioned_by_table(compiled: tuple[Path, dict]) -> None:
    target, manifest = compiled
    for name in ("fct_row_changes", "fct_schema_changes"):
        node = manifest["nodes"][f"model.cdc_lakehouse.{name}"]
        assert node["config"]["liquid_clustered_by"] == ["database_name", "table_name"]
    versions = manifest["nodes"]["model.cdc_lakehouse.dim_row_versions"]
    assert versions["config"]["partition_by"] == ["database_name", "table_name"]


def test_python_models_parse_as_dbt_databricks_submits_them(compiled: tuple[Path, dict]) -> None:
    target, manifest = compiled
    python_models = [n for n in _nodes(manifest, "model") if n["language"] == "python"]
    assert sorted(n["name"] for n in python_models) == [
        "base_debezium_avro__container_records",
        "base_dts_avro__container_records",
        "base_oms_avro__binary_values",
        "base_oms_avro__container_records",
        "int_row_changes_labelled",
    ]
    for node in python_models:
        assert node["config"]["submission_method"] == "serverless_cluster", node["name"]
        # The submission helpers' own reading of the model (raises on a config they reject).
        parsed = ParsedPythonModel(**node)
        assert (parsed.catalog, parsed.schema_, parsed.identifier) == (CATALOG, SCHEMA, node["alias"])
        code = _compiled_code(target, node)
        assert "def model(dbt, session):" in code
        assert f"return '`{CATALOG}`.`{SCHEMA}`.`{node['alias']}`'" in code  # dbt.this
        assert "self.is_incremental = False" in code  # an empty catalog: the first build


def test_macros_dispatch_to_the_spark_forms(compiled: tuple[Path, dict]) -> None:
    target, manifest = compiled
    staging = manifest["nodes"]["model.cdc_lakehouse.stg_canal_json__messages"]
    code = _compiled_code(target, staging)
    # Unasked (no introspection), the JSON checks take their VARIANT form, as on Databricks runtimes
    # from 15.3; the project's own macros, not an adapter's, build the staging query.
    assert "try_parse_json(" in code
    assert "{{" not in code
    # A model's data test compiles from the project's own macros, as on the other targets.
    macros = {m["name"] for m in manifest["macros"].values() if m["package_name"] == "cdc_lakehouse"}
    assert not [name for name in macros if name.startswith(("sparkpy__", "spark__", "databricks__"))]
    checks = manifest["nodes"][next(n for n in manifest["nodes"] if ".row_checks_fct_row_changes" in n)]
    code = (target / "compiled" / "cdc_lakehouse" / checks["original_file_path"] / f"{checks['name']}.sql").read_text()
    assert f"select * from `{CATALOG}`.`{SCHEMA}`.`fct_row_changes`" in code
    assert "count_if(change_id is null)" in code
