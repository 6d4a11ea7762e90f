"""Debezium's MariaDB connector and Maxwell's daemon on a real MariaDB (a throwaway server),
reading its binlog side by side: after a workload of inserts, multi-row updates and deletes in
a transaction, a key change, a row inserted, deleted and inserted again, TRUNCATE, schema
changes (ADD, DROP and RENAME COLUMN, widenings, RENAME TABLE) and edge values of common types,
with both producers crashing midway and sending again, every typed replica equals its source
table read with SELECT but where a producer cannot say the value, one fact stands for each
change, and nothing real is rejected."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cdc_tools.producers.capture import DATABASE, PRODUCERS, capture
from support.conformance import KEPT_ROWS, NOT_EXACT, RENAMED, STEPS, build_steps
from support.source_values import differences

WORKLOAD = Path(__file__).parent / "mariadb"
NAMES = [producer.name for producer in PRODUCERS["mariadb"]]
# The events of a key-changing UPDATE past one: Debezium sends a delete of the old key and a
# create of the new one, Maxwell one update.
KEY_CHANGE_EXTRA_EVENTS = {"debezium_mariadb": 1, "maxwell_mariadb": 0}
# The DDL a producer does not send: Maxwell's daemon sends nothing for TRUNCATE.
UNSENT_DDL = {"debezium_mariadb": [], "maxwell_mariadb": ["TRUNCATE"]}


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Each producer's files (before its crash, after), the source tables at the crash and after
    the workload, and the workload's statement results."""
    root = tmp_path_factory.mktemp("mariadb")
    with capture(WORKLOAD, root, root / "work") as captured:
        yield {
            "files": {name: sorted((root / name).glob("*.jsonl")) for name in NAMES},
            "tables": {"midpoint": captured.tables_at_pause, "end": captured.tables()},
            "tags": captured.tags,
        }


@pytest.fixture(scope="module")
def builds(captured: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    # Debezium's values name no key: the tables' own, under each name a table had.
    keys = {
        f"{DATABASE}.{table}": source["key"]
        for tables in captured["tables"].values()
        for table, source in tables.items()
    }
    landings = {producer.name: (producer.format, captured["files"][producer.name]) for producer in PRODUCERS["mariadb"]}
    return build_steps(tmp_path_factory.mktemp("mariadb_builds"), landings, keys)


@pytest.mark.parametrize("producer", NAMES)
@pytest.mark.parametrize("step", STEPS)
def test_nothing_real_is_rejected(builds: dict[str, dict[str, Any]], producer: str, step: str) -> None:
    assert builds[producer][step]["marts"]["fct_rejected_messages"] == []


@pytest.mark.parametrize("producer", NAMES)
def test_every_real_change_is_one_fact(
    captured: dict[str, Any], builds: dict[str, dict[str, Any]], producer: str
) -> None:
    """As many row changes as the workload's statements changed rows, however many the crash
    sent again, and one schema change per DDL statement the producer sends."""
    verbs = [tag.split() for tag in captured["tags"]]
    marts = builds[producer]["end"]["marts"]
    changed = sum(int(rows) for verb, rows in verbs if verb in ("INSERT", "UPDATE", "DELETE"))
    assert len(marts["fct_row_changes"]) == changed + KEY_CHANGE_EXTRA_EVENTS[producer]
    ddl = [verb for verb, _ in verbs if verb in ("CREATE", "ALTER", "RENAME", "TRUNCATE")]
    sent = [verb for verb in ddl if verb not in UNSENT_DDL[producer]]
    schema_changes = [row for row in marts["fct_schema_changes"] if row["database_name"] == DATABASE]
    assert sorted(row["ddl_kind"] for row in schema_changes) == sorted(sent)


@pytest.mark.parametrize("producer", NAMES)
@pytest.mark.parametrize("step", STEPS)
def test_every_replica_equals_its_source_table(
    captured: dict[str, Any], builds: dict[str, dict[str, Any]], producer: str, step: str
) -> None:
    replicas = builds[producer][step]["replicas"]
    found = set()
    for table, source in captured["tables"][step].items():
        [key] = source["key"]
        copies = {str(row[key]): row for row in replicas.get(table, {"rows": []})["rows"]}
        kept = [kept_key for kept_table, kept_key in KEPT_ROWS[producer] if kept_table == table]
        assert sorted(copies) == sorted([row[key] for row in source["rows"]] + kept), table
        found |= {(table, column) for _, column, _, _ in differences(source, key, copies)}
    assert found == set(NOT_EXACT[producer])


@pytest.mark.parametrize("producer", NAMES)
def test_a_renamed_table_keeps_its_rows(
    captured: dict[str, Any], builds: dict[str, dict[str, Any]], producer: str
) -> None:
    """`RENAME TABLE orders TO purchases`, then one INSERT: the new name's replica equals the
    source table (above) because the rows written before the rename came over with it, each
    opened by the rename, and the old name keeps none."""
    marts = builds[producer]["end"]["marts"]
    [rename] = [row for row in marts["fct_schema_changes"] if row["previous_table_name"] is not None]
    assert (rename["previous_table_name"], rename["table_name"]) == ("orders", RENAMED)
    carried = [
        json.loads(row["primary_key"])["order_id"]
        for row in marts["dim_current_rows"]
        if row["table_name"] == RENAMED and row["last_change_id"] == rename["change_id"]
    ]
    inserted_after = {"14"}
    source = [
        row["order_id"] for row in captured["tables"]["end"][RENAMED]["rows"] if row["order_id"] not in inserted_after
    ]
    assert sorted(carried) == sorted(source + [key for _, key in KEPT_ROWS[producer]])
    assert builds[producer]["end"]["replicas"]["orders"]["rows"] == []


# The Spark type of a replica column, by its MariaDB type (information_schema's column_type): the
# first pattern that matches.
SPARK_TYPES = {
    r"(tiny|small|medium)?int\(\d+\)|year\(4\)": "int",
    r"bigint\(\d+\)": "bigint",
    r"bigint\(\d+\) unsigned": "decimal(20,0)",
    r"decimal\((\d|[12]\d|3[0-8]),(\d+)\)": r"decimal(\1,\2)",
    r"double|float": "double",
    r"date": "date",
    r"datetime\(\d\)|timestamp\(\d\)": "timestamp",
    r"blob|binary\(\d+\)": "binary",
    # Past Spark's 38 digits; a time past a day; bits as their number; geometry as extended WKT.
    r"decimal\(\d+,\d+\)|time\(\d\)|bit\(\d+\)|point": "string",
    r"varchar\(\d+\)|text|longtext|enum\(.*\)|set\(.*\)": "string",
}
# Where a producer's messages type a column otherwise (before the patterns above): Maxwell's
# `def` gives a decimal no precision, and its bytes are base64 text.
PRODUCER_SPARK_TYPES = {
    "debezium_mariadb": {},
    "maxwell_mariadb": {r"decimal\(\d+,\d+\)": "string", r"blob|binary\(\d+\)": "string"},
}


@pytest.mark.parametrize("producer", NAMES)
def test_every_replica_column_has_its_source_types_spark_type(
    captured: dict[str, Any], builds: dict[str, dict[str, Any]], producer: str
) -> None:
    replicas = builds[producer]["end"]["replicas"]
    patterns = [*PRODUCER_SPARK_TYPES[producer].items(), *SPARK_TYPES.items()]
    for table, source in captured["tables"]["end"].items():
        for column, source_type in source["types"].items():
            expected = next(re.sub(p, spark, source_type) for p, spark in patterns if re.fullmatch(p, source_type))
            assert replicas[table]["types"][column] == expected, (table, column, source_type)
