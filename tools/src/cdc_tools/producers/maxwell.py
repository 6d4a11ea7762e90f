"""Maxwell's daemon (`com.zendesk:maxwell` 1.22.6, the newest release Maven Central serves;
`make setup` fetches it into jvm/jars/maxwell) reading a MariaDB server's binlog, its JSON
written one value per line as a sink lands them.

Run as its own process (`python -m cdc_tools.producers.maxwell ...`), like the Debezium one: it
stops after the first change to the `--until-table` table, or with `--crash` kills the daemon
there: it starts again from the position it stored last (it stores one every few seconds),
sending what came after it again."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import IO

# Maxwell 1.22 tests each value against Nashorn's ScriptObjectMirror, a class Java 15 removed:
# an empty class of that name lets it run on Java 17 (its values are never one).
NASHORN_STAND_IN = """package jdk.nashorn.api.scripting;
public final class ScriptObjectMirror { private ScriptObjectMirror() {} }
"""
OPTIONS = {
    "user": "producer",
    "password": "producer",
    "host": "127.0.0.1",
    "producer": "stdout",
    "output_binlog_position": "true",
    "output_primary_keys": "true",
    "output_primary_key_columns": "true",
    "output_ddl": "true",
    "output_commit_info": "true",
    "output_xoffset": "true",
    "output_server_id": "true",
    "output_thread_id": "true",
}


def classpath(jars: Path, work: Path) -> str:
    """Maxwell's jars and the Nashorn stand-in, compiled in `work`."""
    source = work / "jdk" / "nashorn" / "api" / "scripting" / "ScriptObjectMirror.java"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(NASHORN_STAND_IN)
    subprocess.run(["javac", "-d", str(work / "classes"), str(source)], check=True)
    return ":".join([*map(str, sorted((jars / "maxwell").glob("*.jar"))), str(work / "classes")])


def capture(port: int, database: str, jars: Path, state: Path, output: IO[str], until_table: str, crash: bool) -> None:
    """Writes each value Maxwell sends for `database` to `output` until a change of
    `until_table` arrives; then stops the daemon, or with `crash` kills it."""
    settings = {**OPTIONS, "port": port, "filter": f"exclude: *.*, include: {database}.*"}
    command = ["java", "-cp", classpath(jars, state), "com.zendesk.maxwell.Maxwell"]
    daemon = subprocess.Popen(
        [*command, *(f"--{name}={value}" for name, value in settings.items())], stdout=subprocess.PIPE, text=True
    )
    try:
        for line in daemon.stdout:
            output.write(line)
            output.flush()
            value = json.loads(line)
            if value.get("table") == until_table and "data" in value:  # a row's change, not the DDL
                break
        else:
            raise RuntimeError(f"Maxwell stopped before a change of {until_table} (its log is above)")
    finally:
        daemon.kill() if crash else daemon.terminate()
        daemon.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument(
        "--state", type=Path, required=True, help="a folder kept across runs (Maxwell keeps its position in the server)"
    )
    parser.add_argument("--jars", type=Path, required=True, help="the folder of the jars Maven fetched (jvm/jars)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--until-table", required=True)
    parser.add_argument("--crash", action="store_true", help="kill the daemon at the until-table's change")
    args = parser.parse_args()
    with args.output.open("w") as output:
        capture(args.port, args.database, args.jars, args.state, output, args.until_table, args.crash)


if __name__ == "__main__":
    main()
