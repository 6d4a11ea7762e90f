#!/usr/bin/env bash
# Starts or stops a local Spark Thrift Server with Spark Connect in the same application,
# from the pyspark install in .venv, on loopback ports; state lives in $CDC_THRIFT_DIR.
# ANSI mode is off, as dbt-spark sets it for its sessions, unless CDC_SPARK_ANSI=true: the
# Thrift server ignores the session configuration dbt-spark sends.
#   scripts/thrift_server.sh up | down
set -euo pipefail

cd "$(dirname "$0")/.."
source scripts/local_spark.sh
STATE_DIR="${CDC_THRIFT_DIR:-.thrift}"
THRIFT_PORT="${CDC_THRIFT_PORT:-10000}"
CONNECT_PORT="${CDC_SPARK_CONNECT_PORT:-15002}"
DRIVER_MEMORY="${CDC_SPARK_DRIVER_MEMORY:-5g}"
PID_FILE="$STATE_DIR/server.pid"
LOG_FILE="$STATE_DIR/server.log"
START_TIMEOUT_S=180

port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

up() {
    command -v java >/dev/null || { echo "Java 17 is required (Spark runs on it)." >&2; exit 1; }
    if [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
        echo "Thrift server already running (pid $(cat "$PID_FILE"))."; return
    fi
    for port in "$THRIFT_PORT" "$CONNECT_PORT"; do
        if port_answers "$port"; then
            echo "Port $port on 127.0.0.1 is taken; set CDC_THRIFT_PORT / CDC_SPARK_CONNECT_PORT." >&2
            exit 1
        fi
    done
    mkdir -p "$STATE_DIR"
    local state spark_home
    state="$(cd "$STATE_DIR" && pwd)"
    spark_home="$(local_spark_home)"
    local_spark_args "$state"
    # setsid: the server outlives this shell and `down` stops its whole process group.
    # PYSPARK_PYTHON: Python functions sent over Spark Connect run with this venv's packages.
    PYSPARK_PYTHON="$PWD/.venv/bin/python" setsid "$spark_home/bin/spark-submit" \
        --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
        --name cdc-lakehouse-thrift \
        "${LOCAL_SPARK_ARGS[@]}" \
        --driver-memory "$DRIVER_MEMORY" \
        --conf spark.plugins=org.apache.spark.sql.connect.SparkConnectPlugin \
        --conf spark.connect.grpc.binding.address=127.0.0.1 \
        --conf "spark.connect.grpc.binding.port=$CONNECT_PORT" \
        --conf spark.sql.shuffle.partitions=4 \
        --hiveconf hive.server2.thrift.bind.host=127.0.0.1 \
        --hiveconf "hive.server2.thrift.port=$THRIFT_PORT" \
        spark-internal >"$LOG_FILE" 2>&1 < /dev/null &
    echo $! >"$PID_FILE"
    local waited=0
    until port_answers "$THRIFT_PORT" && port_answers "$CONNECT_PORT"; do
        if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
            echo "Thrift server exited; see $LOG_FILE:" >&2; tail -n 30 "$LOG_FILE" >&2; rm -f "$PID_FILE"; exit 1
        fi
        if (( waited >= START_TIMEOUT_S )); then
            echo "Thrift server did not open ports $THRIFT_PORT and $CONNECT_PORT in ${START_TIMEOUT_S}s; see $LOG_FILE." >&2
            down; exit 1
        fi
        sleep 2; waited=$((waited + 2))
    done
    echo "Thrift server on 127.0.0.1:$THRIFT_PORT, Spark Connect on sc://127.0.0.1:$CONNECT_PORT (log: $LOG_FILE)."
}

down() {
    if [[ ! -f "$PID_FILE" ]]; then echo "No thrift server running."; return; fi
    local pid; pid="$(cat "$PID_FILE")"
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 -- "-$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    echo "Thrift server stopped."
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
