"""scripts/spark_sql.sh: a SQL console on the local target's warehouse and metastore."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _sql(spark_dir: Path, statements: str) -> list[str]:
    done = subprocess.run(
        [str(REPO / "scripts" / "spark_sql.sh"), "-e", statements],
        env={**os.environ, "CDC_SPARK_DIR": str(spark_dir), "CDC_SCHEMA": "default"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout.splitlines()


def test_the_console_keeps_tables_in_the_local_warehouse_and_metastore_in_utc(tmp_path: Path) -> None:
    create = "create table kept using parquet as select 42 as answer, timestamp'2024-01-02 03:04:05' as at"
    # Each result with its column names (a statement's is `Response code`).
    assert _sql(tmp_path, f"{create}; select answer, at, current_timezone() from kept") == [
        "Response code",
        "answer\tat\tcurrent_timezone()",
        "42\t2024-01-02 03:04:05\tUTC",
    ]
    # Where the local target's dbt finds them (CDC_SPARK_DIR).
    assert (tmp_path / "warehouse" / "kept").is_dir()
    assert (tmp_path / "metastore_db").is_dir()
