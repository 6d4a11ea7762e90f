"""A replica follows its table's DDL in place where Delta can: two builds on one warehouse,
the second after a canal ALTER TABLE that widens `qty` from int to bigint (and a row that needs
it). On Spark 4 (Delta 4) the column is widened with ALTER COLUMN TYPE and the new row merged;
on Spark 3.5 (Delta 3.3, which widens only byte and short) the replica is rewritten. Either
way it holds the table's rows, typed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cdc_tools.registry import reading_only
from support.dbt_harness import DATA_BUILD, REPO, Build, profiles_dir
from support.dbt_worker import DbtWorker
from support.plain_merge import DELTA_WIDENS_IN_PLACE

BIG = 5_000_000_000  # over int's range


def _canal(kind: str, es: int, columns: dict[str, str] | None, data: list[dict[str, str]] | None, **fields: Any) -> str:
    """A canal FlatMessage of shop.stock: DML with its columns' MySQL types, or DDL."""
    jdbc = {"int": 4, "bigint": -5}
    message: dict[str, Any] = {
        "data": data,
        "database": "shop",
        "es": es,
        "id": es,
        "isDdl": columns is None,
        "mysqlType": columns,
        "old": None,
        "pkNames": None if columns is None else ["id"],
        "sql": "",
        "sqlType": None if columns is None else {name: jdbc[type_] for name, type_ in columns.items()},
        "table": "stock",
        "ts": es + 100,
        "type": kind,
        **fields,
    }
    return json.dumps(message) + "\n"


FIRST = _canal(
    "INSERT", 1_700_000_000_000, {"id": "int", "qty": "int"}, [{"id": "1", "qty": "5"}, {"id": "2", "qty": "7"}]
)
SECOND = _canal("ALTER", 1_700_000_001_000, None, None, sql="ALTER TABLE stock MODIFY COLUMN qty bigint") + _canal(
    "UPDATE", 1_700_000_002_000, {"id": "int", "qty": "bigint"}, [{"id": "2", "qty": str(BIG)}], old=[{"qty": "7"}]
)


def _replica(build: Build) -> tuple[str, dict[str, Any], list[str]]:
    """How this build wrote the one replica, its table, and the operations of its Delta history."""
    [listing] = build.tables(("dim_replica_tables",))["dim_replica_tables"]["rows"]
    name = listing["replica_name"]
    history = build.query(f"describe history {build.schema}_replica.{name}")
    operations = [row["operation"] for row in sorted(history, key=lambda row: row["version"])]
    return listing["write_action"], build.tables((name,), suffix="_replica")[name], operations


@pytest.fixture(scope="module")
def replicas(
    tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker
) -> list[tuple[str, dict[str, Any], list[str]]]:
    """The replica after each of the two builds."""
    root = tmp_path_factory.mktemp("replica_schema_changes")
    landing = root / "landing" / "canal_json"
    landing.mkdir(parents=True)
    profiles = profiles_dir(root)
    canal_only = reading_only(REPO, "canal_json")  # the landing's format
    read = []
    for step, lines in enumerate((FIRST, SECOND), start=1):
        (landing / f"part-{step}.jsonl").write_text(lines)
        build = Build(
            f"build {step}",
            root / f"build{step}",
            DATA_BUILD,
            landing.parent,
            dbt_vars=canal_only,
            schema="replica_schema_changes",
            worker=shared_worker,
        )
        build.start(profiles)
        read.append(_replica(build))
    return read


def test_a_widened_column_is_widened_in_place_where_delta_can(
    replicas: list[tuple[str, dict[str, Any], list[str]]],
) -> None:
    (created, before, _), (written, after, operations) = replicas
    assert created == "created" and before["types"]["qty"] == "int"
    assert after["types"]["qty"] == "bigint"
    assert sorted((row["id"], row["qty"]) for row in after["rows"]) == [(1, 5), (2, BIG)]
    assert written == ("merged" if DELTA_WIDENS_IN_PLACE else "rewritten")
    assert ("CHANGE COLUMN" in operations) == DELTA_WIDENS_IN_PLACE, operations
