"""The project's shape, checked on the manifest of `dbt parse` (no warehouse needed; a warning of
the parse, such as a macro argument's type outside dbt's vocabulary, fails it): every format
of the registry has its parts and nothing else is a format, names follow their layer, staging
reads only its own format (and seeds), marts read no source, every model, source, seed, column,
macro and macro argument is described, every model tested, and every mart has a consumer (an
exposure)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml
from dbt_common.clients.jinja import get_environment

from cdc_tools.generator.formats import FORMATS
from cdc_tools.registry import project_formats, reading_only

REPO = Path(__file__).resolve().parents[2]
DBT = REPO / ".venv" / "bin" / "dbt"


def _dbt_parse(project: Path, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (work / "profiles").mkdir(parents=True)
    shutil.copy(REPO / "profiles.yml", work / "profiles" / "profiles.yml")
    return subprocess.run(
        [
            str(DBT),
            "--warn-error",
            "parse",
            "--profiles-dir",
            str(work / "profiles"),
            "--target-path",
            str(work / "target"),
            "--log-path",
            str(work / "logs"),
            *args,
        ],
        cwd=project,
        env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("structure")
    done = _dbt_parse(REPO, root)
    assert done.returncode == 0, done.stdout[-4000:]
    return json.loads((root / "target" / "manifest.json").read_text())


def test_a_format_spelling_without_a_contract_column_does_not_compile(tmp_path: Path) -> None:
    """The format contract is code: canal's spelling with two of its columns misnamed fails the
    parse, naming both and the hooks they belong to."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "dbt_project.yml", project)
    for folder in ["models", "macros", "seeds", "tests/dbt"]:
        shutil.copytree(REPO / folder, project / folder)
    model = project / "models" / "staging" / "canal_json" / "stg_canal_json__messages.sql"
    spelling = model.read_text()
    model.write_text(spelling.replace(" as emitted_at,", " as emitted,").replace(" as transaction_id,", " as txn,"))
    done = _dbt_parse(project, tmp_path / "work")
    assert done.returncode != 0
    assert "The spelling of canal_json does not give: emitted_at (time), transaction_id (position)" in done.stdout


def _format_of(node: dict[str, Any]) -> str | None:
    """The format whose staging folder declares the node, if any."""
    parts = Path(node["original_file_path"]).parts
    return parts[2] if parts[:2] == ("models", "staging") else None


def _formats_of(manifest: dict[str, Any]) -> dict[str, set[str]]:
    """The formats each node and source is part of: a staging folder's node, its format's; a
    seed only staging models read, and its data tests, their formats'; any other, none."""
    every = {**manifest["nodes"], **manifest["sources"]}
    formats = {key: {format_} if (format_ := _format_of(node)) else set() for key, node in every.items()}
    for key, node in every.items():
        if node["resource_type"] == "seed":
            readers = [formats[child] for child in manifest["child_map"][key] if child.startswith("model.")]
            if readers and all(readers):
                formats[key] = set().union(*readers)
    for key, node in every.items():
        if node["resource_type"] == "test" and node.get("attached_node", "").startswith("seed."):
            formats[key] = formats[node["attached_node"]]
    return formats


def test_a_project_reading_one_format_has_no_node_of_the_others(manifest: dict[str, Any], tmp_path: Path) -> None:
    """A registry of canal_json alone leaves out every other format's models, landing sources,
    seeds and their data tests, and keeps every other model, source, seed and data test."""
    done = _dbt_parse(REPO, tmp_path, "--vars", json.dumps(reading_only(REPO, "canal_json")))
    assert done.returncode == 0, done.stdout[-4000:]
    one_format = json.loads((tmp_path / "target" / "manifest.json").read_text())
    formats = _formats_of(manifest)

    def enabled(parsed: dict[str, Any]) -> set[str]:
        return {key for key, node in {**parsed["nodes"], **parsed["sources"]}.items() if node["config"]["enabled"]}

    kept = {key for key in enabled(manifest) if not formats[key] or "canal_json" in formats[key]}
    assert enabled(one_format) == kept
    assert set().union(*(formats[key] for key in enabled(one_format))) == {"canal_json"}
    assert {key for key in enabled(manifest) - kept if key.startswith("seed.")} == {
        "seed.cdc_lakehouse.debezium_connect_types",
        "seed.cdc_lakehouse.dts_mysql_data_types",
        "seed.cdc_lakehouse.oms_data_types",
    }


def _models(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in manifest["nodes"].values() if n["resource_type"] == "model"]


def _layer(node: dict[str, Any]) -> tuple[str, str | None]:
    """(layer, format) from the model's folder, e.g. ('staging', 'canal_json')."""
    parts = Path(node["original_file_path"]).parts
    return parts[1], parts[2] if parts[1] == "staging" else None


def test_every_format_of_the_registry_has_its_parts_and_nothing_else_is_a_format(manifest: dict[str, Any]) -> None:
    """A format is its registry entry, its staging folder (its source, its staged messages), its
    macro folder, its samples and its generator encoder: each of those names exactly the formats of
    var('cdc_formats'), and an entry's `ddl` and `containers` match what the format has."""
    registry = project_formats(REPO)
    assert len(registry) >= 6
    folders = {path.name for path in (REPO / "models" / "staging").iterdir() if path.is_dir()}
    macro_folders = {path.parent.name for path in (REPO / "macros" / "formats").glob("*/*.sql")}
    samples = {path.name for path in (REPO / "samples" / "landing").iterdir() if any(path.iterdir())}
    assert folders == macro_folders == samples == set(FORMATS) == set(registry)
    models = {node["name"] for node in _models(manifest)}
    sources = {(node["source_name"], node["name"]) for node in manifest["sources"].values()}
    for name, entry in registry.items():
        assert f"stg_{name}__messages" in models, name
        assert ((name, "landed_container_files") in sources) == bool(entry.containers), name
        assert (f"base_{name}__container_records" in models) == bool(entry.containers), name
        assert (name, "landed_lines") in sources, name
        assert FORMATS[name].carries_ddl == entry.ddl, name
        assert bool(FORMATS[name].avro_record) == bool(entry.containers), name
    assert {source for source, _ in sources} == set(registry)


@pytest.mark.parametrize(("document", "section"), [("README.md", "## Formats"), ("docs/formats.md", "## What each")])
def test_the_formats_tables_of_the_docs_list_the_registry(document: str, section: str) -> None:
    """The docs' formats tables have one row per format of the registry (the first cell, its folder)."""
    text = (REPO / document).read_text().split(section, 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9_]+)` \|", text, re.MULTILINE)
    assert rows == list(project_formats(REPO))


def test_model_names_follow_their_layer(manifest: dict[str, Any]) -> None:
    wrong = []
    for node in _models(manifest):
        layer, format_name = _layer(node)
        prefixes = {
            "landing": ("base_kafka__",),
            "staging": (f"base_{format_name}__", f"stg_{format_name}__"),
            "intermediate": ("int_",),
            "marts": ("fct_", "dim_"),
        }[layer]
        if not node["name"].startswith(prefixes):
            wrong.append(node["original_file_path"])
    assert wrong == []


def test_staging_reads_only_its_own_format_and_marts_read_no_source(manifest: dict[str, Any]) -> None:
    nodes = {**manifest["nodes"], **manifest["sources"]}
    wrong = []
    for node in _models(manifest):
        layer, format_name = _layer(node)
        for parent_id in node["depends_on"]["nodes"]:
            parent = nodes[parent_id]
            if layer == "staging":
                same_format = (parent["resource_type"] == "source" and parent["source_name"] == format_name) or (
                    parent["resource_type"] == "model"
                    and _layer(parent) in {("staging", format_name), ("landing", None)}
                )
                if not same_format and parent["resource_type"] != "seed":
                    wrong.append((node["name"], parent_id))
            elif layer == "marts" and parent["resource_type"] == "source":
                wrong.append((node["name"], parent_id))
    assert wrong == []


def test_every_model_source_seed_and_column_is_described(manifest: dict[str, Any]) -> None:
    documented = [
        n
        for n in [*manifest["nodes"].values(), *manifest["sources"].values()]
        if n["resource_type"] in {"model", "seed", "source"}
    ]
    assert len(documented) > 25
    undescribed = [n["unique_id"] for n in documented if not n["description"].strip()]
    undescribed += [
        f"{n['unique_id']}.{name}"
        for n in documented
        for name, column in n["columns"].items()
        if not column["description"].strip()
    ]
    assert undescribed == []
    assert [n["unique_id"] for n in documented if not n["columns"]] == []


def test_every_model_has_a_test(manifest: dict[str, Any]) -> None:
    tested = {
        parent
        for node in manifest["nodes"].values()
        if node["resource_type"] == "test"
        for parent in node["depends_on"]["nodes"]
    } | {test["depends_on"]["nodes"][0] for test in manifest["unit_tests"].values()}
    assert [n["unique_id"] for n in _models(manifest) if n["unique_id"] not in tested] == []


def _project_macros(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in manifest["macros"].values() if m["package_name"] == manifest["metadata"]["project_name"]]


def _signature(macro: dict[str, Any]) -> list[str]:
    """The argument names of the macro's Jinja definition, as dbt's own Jinja parses it."""
    ast = get_environment().parse(macro["macro_sql"])
    [definition] = ast.find_all(jinja2.nodes.Macro)
    return [argument.name for argument in definition.args]


def _is_generic_test(macro: dict[str, Any]) -> bool:
    return Path(macro["original_file_path"]).parts[:3] == ("tests", "dbt", "generic")


def _described_in(macro: dict[str, Any]) -> Path:
    """Where a macro is to be described: in its folder's `_<folder>__macros.yml` (a format's
    macros in macros/formats/<format>/)."""
    path = Path(macro["original_file_path"])
    return path.parent / f"_{path.parent.name}__macros.yml"


def test_every_format_has_unit_tests_of_its_own(manifest: dict[str, Any]) -> None:
    """Each format's `_<format>__unit_tests.yml` tests its staged messages and what they give the
    shared rules (int_row_changes), from its own examples."""
    tested: dict[str, set[str]] = {}
    for test in manifest["unit_tests"].values():
        path = Path(test["original_file_path"])
        tested.setdefault(path.name, set()).add(test["model"])
    untested = [
        (name, model)
        for name in FORMATS
        for model in (f"stg_{name}__messages", "int_row_changes")
        if model not in tested.get(f"_{name}__unit_tests.yml", set())
    ]
    assert untested == []


def test_every_model_a_description_names_exists(manifest: dict[str, Any]) -> None:
    """A name shaped like a model's (stg_, int_, fct_, dim_, base_) in any description is a model
    of the project or a unit test's fixture: descriptions do not outlive what they name."""
    fixtures = {path.stem for path in (REPO / "tests" / "dbt" / "fixtures").rglob("*.*")}
    disabled = {node["name"] for nodes in manifest["disabled"].values() for node in nodes}
    known = {node["name"] for node in _models(manifest)} | disabled | fixtures
    described = [
        *manifest["nodes"].values(),
        *manifest["sources"].values(),
        *manifest["macros"].values(),
        *manifest["unit_tests"].values(),
    ]
    texts = [
        (item["unique_id"], text)
        for item in described
        for text in [item.get("description") or ""]
        + [column.get("description") or "" for column in item.get("columns", {}).values()]
    ]
    unknown = {
        (unique_id, name)
        for unique_id, text in texts
        for name in re.findall(r"\b(?:stg|int|fct|dim|base)_[a-z0-9_]+", text)
        if name not in known
    }
    assert sorted(unknown) == []


def test_no_yaml_file_is_over_300_lines() -> None:
    """YAML holds descriptions, tests' names and expectations; test data lives in fixture files."""
    long = [
        (str(path.relative_to(REPO)), lines)
        for folder in ("models", "macros", "seeds", "tests/dbt")
        for path in (REPO / folder).rglob("*.yml")
        if (lines := len(path.read_text().splitlines())) > 300
    ]
    assert long == []


def test_every_macro_and_argument_is_described(manifest: dict[str, Any]) -> None:
    """A macro is described where `_described_in` says, with each argument of its signature, in
    order; a generic test in tests/dbt/generic/ is described there (dbt records no signature for
    those, so their text names the arguments)."""
    macros = _project_macros(manifest)
    assert len(macros) > 50
    wrong = []
    for macro in macros:
        folder = Path(macro["original_file_path"]).parent
        if not macro["description"].strip():
            wrong.append((macro["name"], "no description"))
            continue
        patch_file = Path(macro["patch_path"].split("://", 1)[1])
        if _is_generic_test(macro):
            if patch_file.parent != folder:
                wrong.append((macro["name"], f"described in {patch_file}"))
            continue
        if patch_file != _described_in(macro):
            wrong.append((macro["name"], f"described in {patch_file}, not {_described_in(macro)}"))
        documented = [argument["name"] for argument in macro["arguments"]]
        if documented != _signature(macro):
            wrong.append((macro["name"], f"arguments {documented} != signature {_signature(macro)}"))
        wrong += [
            (macro["name"], f"argument {argument['name']} not described")
            for argument in macro["arguments"]
            if not argument["description"].strip()
        ]
    assert wrong == []


def test_every_mart_has_a_consumer_and_consumers_read_marts(manifest: dict[str, Any]) -> None:
    exposures = list(manifest["exposures"].values())
    marts = {n["unique_id"] for n in _models(manifest) if _layer(n)[0] == "marts"}
    assert len(marts) >= 6
    consumed = {parent for exposure in exposures for parent in exposure["depends_on"]["nodes"]}
    assert sorted(marts - consumed) == []
    assert sorted(consumed - marts) == []
    undescribed = [
        e["unique_id"]
        for e in exposures
        if not e["description"].strip() or not (e["owner"].get("name") or e["owner"].get("email"))
    ]
    assert undescribed == []


def _marts(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in _models(manifest) if _layer(n)[0] == "marts"]


def test_every_mart_enforces_a_contract_naming_and_typing_every_column(manifest: dict[str, Any]) -> None:
    marts = _marts(manifest)
    assert len(marts) >= 6
    assert [m["name"] for m in marts if not m["config"]["contract"]["enforced"]] == []
    assert [(m["name"], c) for m in marts for c, column in m["columns"].items() if not column.get("data_type")] == []


def _tests_of(manifest: dict[str, Any], unique_id: str) -> list[dict[str, Any]]:
    return [
        n for n in manifest["nodes"].values() if n["resource_type"] == "test" and n.get("attached_node") == unique_id
    ]


def _checks(test: dict[str, Any]) -> set[tuple[str, str | None]]:
    """(check, column) pairs a test checks: `row_checks` names a check per column (a key of
    several columns: `unique_combination`, with no column)."""
    meta = test["test_metadata"]
    if meta["name"] != "row_checks":
        return {(meta["name"], test.get("column_name"))}
    kwargs = meta["kwargs"]
    return {
        *(("not_null", column) for column in kwargs.get("not_null", [])),
        *(("accepted_values", column) for column in kwargs.get("accepted_values", {})),
        *(("relationships", r["column"]) for r in kwargs.get("relationships", [])),
        *(("unique", key[0]) if len(key) == 1 else ("unique_combination", None) for key in kwargs.get("unique", [])),
    }


def test_every_mart_has_a_tested_key_and_operations_have_accepted_values(manifest: dict[str, Any]) -> None:
    keys = {
        "fct_row_changes": {("unique", "change_id"), ("not_null", "change_id")},
        "fct_schema_changes": {("unique", "change_id"), ("not_null", "change_id")},
        "fct_rejected_messages": {("unique_combination", None)},
        "fct_message_reconciliation": {("unique", "file_path"), ("not_null", "file_path")},
        "fct_landed_files": {("unique", "file_path"), ("not_null", "file_path")},
        # A rename opens a version of each row it carries: its change and the row's key are unique.
        "dim_row_versions": {("unique_combination", None), ("not_null", "opened_by_change_id")},
        "dim_current_rows": {("unique_combination", None)},
        "dim_keyless_tables": {("unique_combination", None)},
        "dim_replica_tables": {("unique", "replica_name"), ("not_null", "replica_name")},
        "dim_replica_columns": {("unique_combination", None)},
        "fct_replica_changes": {("unique_combination", None)},
    }
    accepted = {
        "fct_row_changes": {"operation", "operation_code"},
        "fct_schema_changes": {"ddl_kind"},
        "fct_rejected_messages": {"reason"},
        "fct_landed_files": {"outcome"},
        "dim_row_versions": {"opened_by_operation", "closed_by_operation"},
        "fct_replica_changes": {"change_type"},
    }
    for mart in _marts(manifest):
        tests = set().union(*(_checks(t) for t in _tests_of(manifest, mart["unique_id"])))
        assert keys[mart["name"]] <= tests, mart["name"]
        assert {(("accepted_values", c)) for c in accepted.get(mart["name"], ())} <= tests, mart["name"]


def test_a_models_generic_data_tests_are_one_query(manifest: dict[str, Any]) -> None:
    """Each node of a build costs, whatever it reads: a model's generic checks are one
    `row_checks` test, one node, not a test per column and check."""
    generic = Counter(
        (node["attached_node"], node["test_metadata"]["name"])
        for node in manifest["nodes"].values()
        if node["resource_type"] == "test" and node.get("test_metadata") and node["attached_node"].startswith("model.")
    )
    assert {name for _, name in generic} == {"row_checks"}
    assert [model for (model, _), count in generic.items() if count > 1] == []


def test_every_landing_source_has_freshness_on_landed_at(manifest: dict[str, Any]) -> None:
    sources = list(manifest["sources"].values())
    assert len(sources) >= 4
    for source in sources:
        assert "landed_at" in (source["loaded_at_field"], source["config"]["loaded_at_field"]), source["unique_id"]
        freshness = source["freshness"]
        assert freshness["warn_after"] == {"count": 6, "period": "hour"}, source["unique_id"]
        assert freshness["error_after"] == {"count": 24, "period": "hour"}, source["unique_id"]


def test_the_var_check_knows_every_var_of_the_project(manifest: dict[str, Any]) -> None:
    """`check_run_inputs` stops a run naming a var the project does not have: its list is
    dbt_project.yml's."""
    macro = manifest["macros"]["macro.cdc_lakehouse.project_var_names"]["macro_sql"]
    listed = re.findall(r"'([a-z_]+)'", macro)
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())
    assert listed == list(project["vars"])
