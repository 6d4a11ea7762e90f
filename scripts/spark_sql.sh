#!/usr/bin/env bash
# A SQL console on the local target's warehouse (CDC_SPARK_DIR, default .spark), in the schema
# CDC_SCHEMA (default cdc): Spark starts once, then each query answers at once, where every
# `dbt show` starts Spark again. Embedded Derby admits one JVM: not while a dbt command runs.
#   scripts/spark_sql.sh                          # interactive
#   scripts/spark_sql.sh -e 'select * from dim_replica_tables'
set -euo pipefail

cd "$(dirname "$0")/.."
SPARK_DIR="${CDC_SPARK_DIR:-.spark}"
mkdir -p "$SPARK_DIR"
state="$(cd "$SPARK_DIR" && pwd)"
spark_home="$(.venv/bin/python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
# The local profile's settings that decide what a query sees (time zone, files read as they are).
exec "$spark_home/bin/spark-sql" \
    --master 'local[2]' \
    --driver-memory "${CDC_SPARK_DRIVER_MEMORY:-2g}" \
    --conf spark.ui.enabled=false \
    --conf spark.ui.showConsoleProgress=false \
    --conf spark.sql.session.timeZone=UTC \
    --conf "spark.sql.ansi.enabled=${CDC_SPARK_ANSI:-false}" \
    --conf "spark.sql.warehouse.dir=$state/warehouse" \
    --conf "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=$state/metastore_db;create=true" \
    --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$state" \
    --conf spark.hadoop.fs.file.impl=org.apache.hadoop.fs.RawLocalFileSystem \
    --conf spark.sql.analyzer.maxIterations=200 \
    --database "${CDC_SCHEMA:-cdc}" \
    "$@"
