"""`dbt build` with type ``sparkpy`` and ``method: session``: the installed ``dbt`` CLI in a
subprocess (one JVM per dbt process) against an embedded Spark with a Derby metastore under
``tmp_path``, a SQL and a Python model, and a Python model that fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

VENV_BIN = Path(sys.executable).parent
DBT = str(VENV_BIN / "dbt")
SCHEMA = "sparkpy_e2e"


def _write_project(root: Path) -> Dict[str, str]:
    project = root / "project"
    spark_dir = root / "spark"
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    spark_dir.mkdir()

    (project / "dbt_project.yml").write_text(
        textwrap.dedent(
            """
            name: sparkpy_e2e
            version: "1.0"
            config-version: 2
            profile: sparkpy_e2e
            model-paths: ["models"]
            macro-paths: ["macros"]
            models:
              sparkpy_e2e:
                +materialized: table
                +file_format: parquet
            """
        )
    )
    # Which prefix does `adapter.dispatch` pick for type `sparkpy`? Must be spark__.
    (project / "macros" / "which_impl.sql").write_text(
        textwrap.dedent(
            """
            {% macro which_impl() %}{{ return(adapter.dispatch('which_impl')()) }}{% endmacro %}
            {% macro default__which_impl() %}default{% endmacro %}
            {% macro spark__which_impl() %}spark{% endmacro %}
            """
        )
    )
    (project / "models" / "sql_model.sql").write_text(
        textwrap.dedent(
            """
            select 1 as id, 'a' as name, '{{ which_impl() }}' as impl
            union all select 2, 'b', '{{ which_impl() }}'
            union all select 3, 'c', '{{ which_impl() }}'
            """
        )
    )
    # No `submission_method` config: the adapter default must pick "session".
    (project / "models" / "py_model.py").write_text(
        textwrap.dedent(
            """
            from pyspark.sql import functions as F


            def model(dbt, spark):
                return dbt.ref("sql_model").withColumn("doubled", F.col("id") * 2)
            """
        )
    )
    (project / "models" / "failing_py_model.py").write_text(
        textwrap.dedent(
            """
            def model(dbt, spark):
                df = dbt.ref("sql_model")
                if df.count() > 0:
                    raise RuntimeError("sparkpy-e2e-deliberate-failure")
                return df
            """
        )
    )

    confs = {
        "spark.master": "local[2]",
        "spark.driver.memory": "1g",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.warehouse.dir": str(spark_dir / "warehouse"),
        "javax.jdo.option.ConnectionURL": (f"jdbc:derby:;databaseName={spark_dir / 'metastore_db'};create=true"),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={spark_dir}",
    }
    profile = {
        "sparkpy_e2e": {
            "target": "local",
            "outputs": {
                "local": {
                    "type": "sparkpy",
                    "method": "session",
                    "host": "localhost",
                    "schema": SCHEMA,
                    "threads": 1,
                    "server_side_parameters": confs,
                }
            },
        }
    }
    # JSON is valid YAML.
    (project / "profiles.yml").write_text(json.dumps(profile, indent=2))
    return {"project": str(project), **confs}


def _dbt(project: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_USE_COLORS": "false"}
    cmd = [DBT, *args, "--project-dir", project, "--profiles-dir", project]
    return subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False)


_READ_BACK = textwrap.dedent(
    """
    import json, sys
    from pyspark.sql import SparkSession

    confs = json.loads(sys.argv[1])
    builder = SparkSession.builder.enableHiveSupport()
    for k, v in confs.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    out = {}
    for name in ("sql_model", "py_model"):
        table = f"{confs['schema']}.{name}"
        out[name] = [r.asDict() for r in spark.table(table).orderBy("id").collect()]
        desc = spark.sql(f"describe table extended {table}").collect()
        out[name + "_provider"] = [r.data_type for r in desc if r.col_name == "Provider"]
    print("RESULT=" + json.dumps(out))
    spark.stop()
    """
)


def _read_back(confs: Dict[str, str], cwd: str) -> Dict[str, List[Any]]:
    """Read the tables with a fresh SparkSession after dbt has exited (Derby is single-process)."""
    proc = subprocess.run(
        [sys.executable, "-c", _READ_BACK, json.dumps({**confs, "schema": SCHEMA})],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT="))
    return json.loads(line[len("RESULT=") :])


def test_e2e_python_model_runs_in_local_session_and_writes_parquet_table(
    tmp_path: Path,
) -> None:
    """`dbt build` with type sparkpy/method session materializes a Python model locally."""
    cfg = _write_project(tmp_path)
    project = cfg.pop("project")

    build = _dbt(project, "build", "--exclude", "failing_py_model")
    assert build.returncode == 0, build.stdout + build.stderr

    run_results = json.loads((Path(project) / "target" / "run_results.json").read_text())
    statuses = {r["unique_id"]: r["status"] for r in run_results["results"]}
    assert statuses == {
        "model.sparkpy_e2e.sql_model": "success",
        "model.sparkpy_e2e.py_model": "success",
    }

    # The failing model's exception reaches dbt as an error with the model traceback.
    failing = _dbt(project, "run", "--select", "failing_py_model")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "sparkpy-e2e-deliberate-failure" in failing.stdout
    assert "failed with traceback" in failing.stdout
    assert "in model" in failing.stdout
    assert "python_submissions.py" not in failing.stdout

    result = _read_back(cfg, cwd=project)
    expected_sql = [
        {"id": 1, "name": "a", "impl": "spark"},
        {"id": 2, "name": "b", "impl": "spark"},
        {"id": 3, "name": "c", "impl": "spark"},
    ]
    assert result["sql_model"] == expected_sql
    assert result["py_model"] == [{**row, "doubled": row["id"] * 2} for row in expected_sql]
    assert result["sql_model_provider"] == ["parquet"]
    assert result["py_model_provider"] == ["parquet"]

    # Data files really live in the profile's warehouse dir as parquet.
    table_dir = Path(cfg["spark.sql.warehouse.dir"]) / f"{SCHEMA}.db" / "py_model"
    assert list(table_dir.glob("*.parquet")), sorted(p.name for p in table_dir.iterdir())
