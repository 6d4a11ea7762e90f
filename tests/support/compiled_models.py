"""Runs models' compiled SQL in the in-process SparkSession, over DataFrames given for the
relations they read: a format's staging SQL tested on hand-written records in seconds, without a
build.

`dbt compile --no-introspect` compiles them once per test session, offline: every model compiles
as a full refresh and in Spark 4's forms (`make test-spark35` builds the Spark 3.5 forms). A
relation the compiled SQL names (`cdc_landing.dts_avro`, `cdc.dts_mysql_data_types`) is read from
a temporary view of the DataFrame given for it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

REPO = Path(__file__).resolve().parents[2]
DBT = Path(sys.executable).with_name("dbt")
SCHEMAS = ("cdc", "cdc_landing")
# The SQL models the unit tests run (the Avro formats' staging: their decoding is SQL; Debezium's
# for its geometries, read with Python; Debezium's and Maxwell's for the producers' corpora).
MODELS = [
    "stg_dts_avro__messages",
    "base_oms_avro__records",
    "stg_oms_avro__messages",
    "stg_debezium_json__messages",
    "stg_debezium_avro__messages",
    "stg_maxwell_json__messages",
]
LANDING = "file_path string, line_number int, payload string, landed_at timestamp"
# A base model's records of binary container files: a landed line's columns and its load time.
CONTAINER_RECORDS = LANDING + ", loaded_at timestamp"


def landed_file_lines(spark: SparkSession, rows: list[tuple]) -> DataFrame:
    """A landing source's rows from files, each (file_path, line_number, payload, landed_at): a
    landed file holds values only, so no record key."""
    return spark.createDataFrame(rows, LANDING).selectExpr("*", "cast(null as string) as record_key")


_RELATION = re.compile(r"\b(" + "|".join(SCHEMAS) + r")\.(\w+)\b")


def compile_models(names: list[str], work: Path) -> dict[str, str]:
    """The compiled SQL of each model, by name."""
    profiles = work / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "profiles.yml").write_text((REPO / "profiles.yml").read_text())
    done = subprocess.run(
        [
            str(DBT),
            "compile",
            "--no-introspect",
            "--no-populate-cache",
            "--select",
            *names,
            "--profiles-dir",
            str(profiles),
            "--target-path",
            str(work / "target"),
            "--log-path",
            str(work / "logs"),
        ],
        cwd=REPO,
        env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_TARGET": "local", "CDC_SCHEMA": "cdc"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    compiled = work / "target" / "compiled" / "cdc_lakehouse" / "models"
    return {name: next(compiled.rglob(f"{name}.sql")).read_text() for name in names}


def relations_read(sql: str) -> set[str]:
    """The relations (`schema.name`) compiled SQL reads."""
    return {f"{schema}.{name}" for schema, name in _RELATION.findall(sql)}


def run_compiled(spark: SparkSession, sql: str, relations: dict[str, DataFrame]) -> DataFrame:
    """The rows of compiled SQL, each relation it reads (`schema.name`) taken from `relations`."""
    read = relations_read(sql)
    missing = read - relations.keys()
    assert not missing, f"no DataFrame given for {sorted(missing)}"
    for relation in read:
        relations[relation].createOrReplaceTempView(_view(relation))
    return spark.sql(_RELATION.sub(lambda match: _view(match.group(0)), sql))


def _view(relation: str) -> str:
    return "compiled__" + relation.replace(".", "__")


@pytest.fixture(scope="session")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The compiled SQL of `MODELS`, by name."""
    return compile_models(MODELS, tmp_path_factory.mktemp("compiled"))


def seed(spark: SparkSession, name: str) -> DataFrame:
    """A seed's rows, as `dbt seed` would load them."""
    return spark.read.csv(str(REPO / "seeds" / f"{name}.csv"), header=True, inferSchema=True)


def staged(frame: DataFrame) -> list[dict[str, Any]]:
    """A staged messages model's rows in landing order, each with its (one) row's images as
    `before_image` and `after_image` (None where it has no row)."""
    rows = sorted(
        (row.asDict(recursive=True) for row in frame.collect()),
        key=lambda r: (r["file_path"], r["line_number"], r["message_index"] or 0),
    )
    for row in rows:
        images = (row["row_images"] or [{"before_image": None, "after_image": None}])[0]
        row.update(before_image=images["before_image"], after_image=images["after_image"])
    return rows
