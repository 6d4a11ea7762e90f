"""Builds what real producers sent, as the conformance tests do (docs/conformance.md): each
producer's first file (up to its crash, the midpoint), then an incremental build once its
second has landed (the end), on a warehouse of its own; the producers' builds run side by
side. Reads the marts and the replicas after each."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from cdc_tools.registry import reading_only
from support.dbt_harness import DATA_BUILD, REPO, UNTESTED_BUILD, Build, profiles_dir
from support.dbt_worker import DbtWorker

STEPS = ("midpoint", "end")
# The midpoint's build leaves the data tests to the end's, which tests all the midpoint loaded
# too: it saves a minute of the conformance tests' budget.
COMMANDS = {"midpoint": UNTESTED_BUILD, "end": DATA_BUILD}
RENAMED = "purchases"  # the MariaDB workload's RENAME TABLE orders TO purchases

# The columns whose values the replica does not hold exactly, and why (docs/conformance.md).
NOT_EXACT = {
    "debezium_mariadb": {},
    "maxwell_mariadb": {
        ("customers", "wakes"): "Maxwell 1.22 sends a time as a time of day: -838:59:58.5 as 17:04:21.277216",
        ("customers", "tags"): "Maxwell sends a SET as a JSON array, which the replica keeps",
        ("customers", "photo"): "Maxwell sends bytes as base64 with no type, which the replica keeps",
        ("customers", "digest"): "Maxwell sends bytes as base64 with no type, which the replica keeps",
    },
}
# The rows a replica holds that its source table no longer does, by (table, key), and why.
KEPT_ROWS = {
    "debezium_mariadb": {},
    "maxwell_mariadb": {
        (RENAMED, "10"): "Maxwell sends no TRUNCATE: the row `truncate orders` removed stays, carried by the rename",
    },
}


def _results(build: Build) -> dict[str, Any]:
    """The marts and each source table's replica (by the table's name)."""
    listed = {row["table_name"]: row["replica_name"] for row in build.marts()["dim_replica_tables"]}
    replicas = build.tables(tuple(listed.values()), suffix="_replica")
    return {"marts": build.marts(), "replicas": {table: replicas[name] for table, name in listed.items()}}


def build_steps(
    root: Path, landings: dict[str, tuple[str, list[Path]]], keys: dict[str, list[str]]
) -> dict[str, dict[str, dict[str, Any]]]:
    """For each producer (`landings`: its format and its files, one per step) and step, the
    marts and replicas; `keys` names the primary keys of the tables whose values name none
    (`cdc_primary_keys`)."""
    profiles = profiles_dir(root)
    workers = {name: DbtWorker(root / name / "spark") for name in landings}
    results: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in landings}
    try:
        for index, step in enumerate(STEPS):
            builds = {}
            for name, (format_, files) in landings.items():
                landing = root / name / "landing" / format_
                landing.mkdir(parents=True, exist_ok=True)
                shutil.copy(files[index], landing)
                vars_ = {"cdc_primary_keys": keys, **reading_only(REPO, format_)}
                builds[name] = Build(
                    step, root / name / step, COMMANDS[step], landing.parent, dbt_vars=vars_, worker=workers[name]
                )
                builds[name].start(profiles)
            for name, build in builds.items():
                results[name][step] = _results(build)
        return results
    finally:
        for worker in workers.values():
            worker.close()
