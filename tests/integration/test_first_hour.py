"""A new user's mistakes (docs/first-hour.md): each stops `dbt build` before any work, with one
line that says what is wrong and what to do, and no stack trace in dbt's output. The builds run
one after another on one worker; a second process on its warehouse meanwhile is refused by the
adapter before its Spark starts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.dbt_harness import Build, profiles_dir
from support.dbt_worker import DbtWorker

ARGS = ["build"]
# What a user typed (vars, and a landing root under the test's folder, None for the samples),
# and the line the build must stop with.
MISTAKES = {
    "mistyped_var": (
        {"landing_rot": "/data/cdc"},
        None,
        "Unknown var `landing_rot`; did you mean `landing_root`? The project's vars: landing_root, landing_source,",
    ),
    "no_landing_root": ({"landing_root": ""}, None, "No landing root: pass --vars '{landing_root: <folder>}'"),
    "missing_landing_root": ({}, "cdx", "cdx does not exist (var landing_root)."),
    "landing_root_without_formats": (
        {},
        "cdc/canal_json",
        "canal_json holds none of the formats' folders (canal_json, cloudcanal_json,",
    ),
}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> Iterator[dict[str, Build]]:
    root = tmp_path_factory.mktemp("first_hour")
    (root / "cdc" / "canal_json").mkdir(parents=True)
    profiles = profiles_dir(root)
    started = {}
    for name, (dbt_vars, landing, _) in MISTAKES.items():
        landing_root = {} if landing is None else {"landing_root": root / landing}
        started[name] = Build(
            name,
            root / name,
            ARGS,
            dbt_vars=dbt_vars,
            schema="first_hour",
            worker=shared_worker,
            check=False,
            **landing_root,
        )
    # The shared worker holds the warehouse's metastore from its first use of the catalog on.
    started["catalog_used"] = Build(
        "catalog used",
        root / "catalog_used",
        ["run-operation", "create_landing_tables"],
        schema="first_hour",
        worker=shared_worker,
    )
    second = DbtWorker(shared_worker.spark_dir)  # a second process on that warehouse
    started["metastore_held"] = Build("metastore held", root / "metastore_held", ARGS, worker=second, check=False)
    try:
        for build in started.values():
            build.start(profiles)
            build.wait()
        yield started
    finally:
        second.close()


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_mistake_stops_the_build_before_any_work_with_one_line(builds: dict[str, Build], mistake: str) -> None:
    build = builds[mistake]
    output = build.output_file.read_text()
    assert build.succeeded is False
    assert MISTAKES[mistake][2] in output, output[-3000:]
    assert "Landing tables" not in output  # nothing was defined, nothing built
    assert "Traceback" not in output and "\tat " not in output


def test_a_second_process_on_the_warehouse_is_told_which_folder_and_what_to_close(builds: dict[str, Build]) -> None:
    build = builds["metastore_held"]
    output = build.output_file.read_text()
    metastore = builds["catalog_used"].spark_dir / "metastore_db"
    assert build.succeeded is False
    assert f"The warehouse's metastore {metastore} is open in another process" in output, output[-3000:]
    assert "SessionHiveMetaStoreClient" not in output and "\tat " not in output
