#!/usr/bin/env bash
# A SQL console on the local target's warehouse (CDC_SPARK_DIR, default .spark), in the schema
# CDC_SCHEMA (default cdc): Spark starts once, then each query answers at once, where every
# `dbt show` starts Spark again. Embedded Derby admits one JVM: not while a dbt command runs.
#   scripts/spark_sql.sh                          # interactive
#   scripts/spark_sql.sh -e 'select * from dim_replica_tables'
set -euo pipefail

cd "$(dirname "$0")/.."
source scripts/local_spark.sh
SPARK_DIR="${CDC_SPARK_DIR:-.spark}"
mkdir -p "$SPARK_DIR"
local_spark_args "$(cd "$SPARK_DIR" && pwd)"
exec "$(local_spark_home)/bin/spark-sql" \
    "${LOCAL_SPARK_ARGS[@]}" \
    --driver-memory "${CDC_SPARK_DRIVER_MEMORY:-2g}" \
    --conf spark.ui.showConsoleProgress=false \
    --hiveconf hive.cli.print.header=true \
    --database "${CDC_SCHEMA:-cdc}" \
    "$@"
