"""A replica follows its table's DDL in place where Delta can: three builds on one warehouse,
the second after a canal ALTER TABLE that widens `qty` from int to bigint (and a row that needs
it). On Spark 4 (Delta 4) the column is widened with ALTER COLUMN TYPE and the new row merged;
on Spark 3.5 (Delta 3.3, which widens only byte and short) the replica is rewritten. Either
way it holds the table's rows, typed. The third drops `tier`, updates one row, and adds `tier`
again: as in MySQL, both rows then hold no tier, the one not changed since the first build
too.

Beside `stock`, the first build renames `queue` to `done` after inserting a row, and the third
brings a DROP COLUMN of `queue` placed between the two: late, it reaches the row the rename
carried. The first build also renames `jobs` to `held` after inserting a row, the second `held`
to `kept`, and the third brings a DELETE of that row placed before the first rename: late, it
takes out what the renames carried."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import pytest

from cdc_tools.registry import reading_only
from support.dbt_harness import DATA_BUILD, REPO, UNTESTED_BUILD, Build, profiles_dir
from support.dbt_worker import DbtWorker
from support.plain_merge import DELTA_WIDENS_IN_PLACE

BIG = 5_000_000_000  # over int's range


def _canal(kind: str, es: int, columns: dict[str, str] | None, data: list[dict[str, str]] | None, **fields: Any) -> str:
    """A canal FlatMessage of shop.stock (or the `table` given): DML with its columns' MySQL
    types, or DDL."""
    jdbc = {"int": 4, "bigint": -5, "varchar(8)": 12}
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


TIERED = {"id": "int", "qty": "bigint", "tier": "varchar(8)"}
QUEUED = {"id": "1", "note": "x"}
JOB = {"id": "1", "note": "j"}
NOTED = {"id": "int", "note": "varchar(8)"}
FIRST = (
    _canal(
        "INSERT",
        1_700_000_000_000,
        {**TIERED, "qty": "int"},
        [{"id": "1", "qty": "5", "tier": "gold"}, {"id": "2", "qty": "7", "tier": "silver"}],
    )
    + _canal("INSERT", 1_700_000_000_100, NOTED, [QUEUED], table="queue")
    + _canal("RENAME", 1_700_000_000_900, None, None, sql="alter table `queue` rename to `done`", table="done")
    + _canal("INSERT", 1_700_000_000_150, NOTED, [JOB], table="jobs")
    + _canal("RENAME", 1_700_000_000_800, None, None, sql="alter table `jobs` rename to `held`", table="held")
)
SECOND = (
    _canal("ALTER", 1_700_000_001_000, None, None, sql="ALTER TABLE stock MODIFY COLUMN qty bigint")
    + _canal("UPDATE", 1_700_000_002_000, TIERED, [{"id": "2", "qty": str(BIG), "tier": "silver"}], old=[{"qty": "7"}])
    + _canal("RENAME", 1_700_000_001_500, None, None, sql="alter table `held` rename to `kept`", table="kept")
)
THIRD = (
    _canal("ALTER", 1_700_000_003_000, None, None, sql="ALTER TABLE stock DROP COLUMN tier")
    + _canal(
        "UPDATE", 1_700_000_004_000, {"id": "int", "qty": "bigint"}, [{"id": "2", "qty": "8"}], old=[{"qty": str(BIG)}]
    )
    + _canal("ALTER", 1_700_000_005_000, None, None, sql="ALTER TABLE stock ADD COLUMN tier varchar(8)")
    + _canal("ALTER", 1_700_000_000_500, None, None, sql="ALTER TABLE `queue` DROP COLUMN `note`", table="queue")
    + _canal("DELETE", 1_700_000_000_200, NOTED, [JOB], table="jobs")
)


class Replica(NamedTuple):
    """How a build wrote one table's replica, the table's earlier names, the replica's table,
    the operations of its Delta history, the versions of dim_row_versions, the current ones by
    id, and fct_replica_changes' loads of it: the build's (before and after images by id) and
    all (their count)."""

    written: str
    renamed_from: list[str]
    table: dict[str, Any]
    operations: list[str]
    versions: list[dict[str, Any]]
    current_versions: dict[str, dict[str, Any]]
    changes: dict[str, tuple[dict[str, str] | None, dict[str, str] | None]]
    all_changes: int


def _replicas(build: Build) -> dict[str, Replica]:
    """Each source table's Replica after the build, by table name."""
    tables = build.tables(("dim_replica_tables", "dim_row_versions", "fct_replica_changes"))
    load = max(row["loaded_at"] for row in tables["fct_replica_changes"]["rows"])
    replicas = {}
    for listing in tables["dim_replica_tables"]["rows"]:
        table, name = listing["table_name"], listing["replica_name"]
        history = build.query(f"describe history {build.schema}_replica.{name}")
        operations = [row["operation"] for row in sorted(history, key=lambda row: row["version"])]
        versions = [row for row in tables["dim_row_versions"]["rows"] if row["table_name"] == table]
        changes = [row for row in tables["fct_replica_changes"]["rows"] if row["table_name"] == table]
        in_load = {
            json.loads(row["primary_key"])["id"]: (row["before_image"], row["after_image"])
            for row in changes
            if row["loaded_at"] == load
        }
        replica = build.tables((name,), suffix="_replica")[name]
        replicas[table] = Replica(
            written=listing["write_action"],
            renamed_from=listing["renamed_from"],
            table=replica,
            operations=operations,
            versions=versions,
            current_versions={row["row_image"]["id"]: row for row in versions if row["is_current"]},
            changes=in_load,
            all_changes=len(changes),
        )
    return replicas


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> list[dict[str, Replica]]:
    """The replicas after each of the three builds. The data tests run in the third, over all
    three loads: the replicas after each build are read here."""
    root = tmp_path_factory.mktemp("replica_schema_changes")
    landing = root / "landing" / "canal_json"
    landing.mkdir(parents=True)
    profiles = profiles_dir(root)
    canal_only = reading_only(REPO, "canal_json")  # the landing's format
    read = []
    for step, lines in enumerate((FIRST, SECOND, THIRD), start=1):
        (landing / f"part-{step}.jsonl").write_text(lines)
        build = Build(
            f"build {step}",
            root / f"build{step}",
            DATA_BUILD if lines is THIRD else UNTESTED_BUILD,
            landing.parent,
            dbt_vars=canal_only,
            schema="replica_schema_changes",
            worker=shared_worker,
        )
        build.start(profiles)
        read.append(_replicas(build))
    return read


def test_a_widened_column_is_widened_in_place_where_delta_can(replicas: list[dict[str, Replica]]) -> None:
    before, after = replicas[0]["stock"], replicas[1]["stock"]
    assert before.written == "created" and before.table["types"]["qty"] == "int"
    assert after.table["types"]["qty"] == "bigint"
    assert sorted((row["id"], row["qty"]) for row in after.table["rows"]) == [(1, 5), (2, BIG)]
    assert after.written == ("merged" if DELTA_WIDENS_IN_PLACE else "rewritten")
    assert ("CHANGE COLUMN" in after.operations) == DELTA_WIDENS_IN_PLACE, after.operations


def test_a_column_dropped_and_added_again_holds_no_value_from_before_the_drop(
    replicas: list[dict[str, Replica]],
) -> None:
    """Row 2, updated after the drop, has no tier in its image; row 1, unchanged since the first
    build, keeps its image, whose tier the drop took (`dropped_columns`): the third build
    rebuilt its versions for the drop alone, and its load took tier from both rows."""
    stock = replicas[-1]["stock"]
    written, replica, versions, changes = stock.written, stock.table, stock.current_versions, stock.changes
    assert written == "merged" and replica["types"]["tier"] == "string"
    assert sorted((row["id"], row["qty"], row["tier"]) for row in replica["rows"]) == [(1, 5, None), (2, 8, None)]
    assert {id_: (version["row_image"], version["dropped_columns"]) for id_, version in versions.items()} == {
        "1": ({"id": "1", "qty": "5", "tier": "gold"}, ["tier"]),
        "2": ({"id": "2", "qty": "8"}, []),
    }
    gold, silver = {"id": "1", "qty": "5", "tier": "gold"}, {"id": "2", "qty": str(BIG), "tier": "silver"}
    assert changes == {"1": (gold, {"id": "1", "qty": "5"}), "2": (silver, {"id": "2", "qty": "8"})}


def test_a_late_drop_before_a_rename_reaches_the_rows_the_rename_carried(replicas: list[dict[str, Replica]]) -> None:
    """The row the rename carried to `done` held `note` from the first build on; the third
    build's DROP COLUMN, placed before the rename, takes it: the row's version names it dropped
    (as a full refresh does) and the load's change takes it from the row."""
    first, *_, last = (build["done"] for build in replicas)
    assert replicas[-1]["queue"].table["rows"] == []
    assert first.changes == {"1": (None, QUEUED)}
    assert last.current_versions["1"]["row_image"] == QUEUED
    assert last.current_versions["1"]["dropped_columns"] == ["note"]
    assert last.changes == {"1": (QUEUED, {"id": "1"})}
    assert [(row["id"], row.get("note")) for row in last.table["rows"]] == [(1, None)]


def test_a_late_delete_before_renames_takes_out_what_they_carried(replicas: list[dict[str, Replica]]) -> None:
    """The row `jobs` held was carried to `held`, then to `kept`; the third build's DELETE,
    placed before the first rename, means neither rename carried it: as a full refresh gives,
    `jobs`' version is closed by the DELETE, no version of the row is left under the later
    names, their replicas are empty and fct_replica_changes lists no change of them."""
    second, third = replicas[1]["kept"], replicas[2]["kept"]
    assert [row["id"] for row in second.table["rows"]] == [1]
    assert [row["opened_by_operation"] for row in second.versions] == ["RENAME"]
    [job] = replicas[2]["jobs"].versions
    assert (job["row_image"], job["closed_by_operation"]) == (JOB, "DELETE")
    for table in ("held", "kept"):
        replica = replicas[2][table]
        assert (replica.table["rows"], replica.versions, replica.all_changes) == ([], [], 0), table
    assert (third.written, third.renamed_from) == ("merged", ["held", "jobs"])
