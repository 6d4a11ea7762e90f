"""A single-node Kafka broker in KRaft mode (broker and controller in one JVM) on 127.0.0.1,
from the jars `make setup` fetched into jvm/jars/kafka: no Docker, no download; and landed
files produced into its topics, a line a record (an Avro format's line as its binary record).

`python -m cdc_tools.kafka up --port 9092 --data .kafka` starts one in the background (its
process id in the data folder), `... down --data .kafka` stops it (`make kafka-up` /
`make kafka-down`); a test starts its own with `Broker` on a free port, in a folder of its own."""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import fastavro

from cdc_lakehouse.avro import record_schema
from cdc_lakehouse.avro.confluent import RegistryClient, framed
from cdc_tools.generator.formats import FORMATS
from cdc_tools.producers.postgres import free_port

JARS = Path("jvm/jars/kafka")  # what `make setup` fetched, from the repository's folder
START_TIMEOUT_S = 60
HEAP = "-Xmx512m"  # a broker for tests and development, beside Spark on a 2-core machine


def broker_settings(port: int, controller_port: int, data: Path) -> str:
    """A single-node broker's server.properties, its logs under `data`."""
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(data / "logs"),
        "num.partitions": "1",
        # One broker: every internal topic has one replica.
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
    }
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def _java(*arguments: str) -> list[str]:
    if not any(JARS.glob("kafka_*.jar")):
        raise RuntimeError(f"No Kafka jars in {JARS}: run `make setup`")
    return ["java", HEAP, "-cp", f"{JARS.resolve()}/*", *arguments]


def format_storage(settings: Path, cluster_id: str) -> None:
    """Formats the log folder of `settings` (a server.properties) for a new cluster."""
    # `--cluster-id=`: a random id begins with '-' one time in 64, which the tool would read as
    # an option.
    format_tool = ("kafka.tools.StorageTool", "format", f"--cluster-id={cluster_id}", "-c", str(settings))
    subprocess.run(_java(*format_tool), check=True, capture_output=True)


@dataclass
class Broker:
    """A broker over `data` (made anew by `start()` unless it holds one already), listening on
    `port`; `bootstrap_servers` is what a client connects to."""

    data: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cdc-kafka-")))
    port: int = field(default_factory=free_port)
    _process: subprocess.Popen | None = field(default=None, init=False, repr=False)

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        settings = self.data / "server.properties"
        settings.write_text(broker_settings(self.port, free_port(), self.data))
        if not (self.data / "logs" / "meta.properties").exists():
            # A cluster id is any 16 bytes in URL-safe base64 (`kafka-storage random-uuid`).
            format_storage(settings, base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))
        with (self.data / "broker.log").open("w") as log:
            self._process = subprocess.Popen(
                _java("kafka.Kafka", str(settings)), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        (self.data / "broker.pid").write_text(str(self._process.pid))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _listens(self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"The Kafka broker did not start: {self.data / 'broker.log'}")
            time.sleep(0.5)

    def stop(self) -> None:
        if self._process is not None:
            (self.data / "broker.pid").unlink(missing_ok=True)
            process = self._process
            _terminate(process.pid, lambda: process.poll() is not None)  # poll() reaps it
            self._process = None


def _listens(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _signal(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass


def _terminate(pid: int, has_ended: Callable[[], bool]) -> None:
    """Asks the broker's process group to stop, and kills it if it has not ended in time."""
    _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not has_ended():
        if time.monotonic() > deadline:
            _signal(pid, signal.SIGKILL)
        time.sleep(0.2)


def stop(data: Path) -> None:
    """Stops the broker whose process id `data` holds (one `up` started, in a process that has
    ended since), and waits for it to end."""
    pid_file = data / "broker.pid"
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    pid_file.unlink()
    _terminate(pid, lambda: not Path(f"/proc/{pid}").exists())


def landed_lines(path: Path) -> list[bytes]:
    """A landed file's lines as the project reads them: split at each LF or CRLF, a final one
    ending the last line."""
    data = path.read_bytes()
    return re.split(rb"\r?\n", re.sub(rb"\r?\n\Z", b"", data)) if data else []


def avro_values(
    format_name: str, lines: list[bytes], registry_url: str | None = None, subject: str | None = None
) -> list[bytes]:
    """What a producer of an Avro format sends for its lines (their text form): the binary
    record each stands for, bare where the format has a record schema (DTS, OMS), else in
    Confluent's wire format with its schema registered at `registry_url` under `subject` (default
    `<format>-value`), as Debezium's AvroConverter sends it. An empty line stays a tombstone."""
    avro_record = FORMATS[format_name].avro_record
    assert avro_record is not None, f"{format_name} is not an Avro format"
    registry = None
    if record_schema(format_name) is None:
        if not registry_url:
            raise ValueError(f"{format_name}'s records name their schemas in a registry: give its URL")
        registry = RegistryClient(registry_url)
    ids: dict[str, int] = {}
    values = []
    for line in lines:
        if not line:
            values.append(b"")
            continue
        schema, datum = avro_record(line.decode("utf-8"))
        out = io.BytesIO()
        fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
        if registry is None:
            values.append(out.getvalue())
            continue
        key = json.dumps(schema, sort_keys=True)
        if key not in ids:
            ids[key] = registry.register(subject or f"{format_name}-value", schema)
        values.append(framed(ids[key], out.getvalue()))
    return values


def produce(bootstrap_servers: str, topic: str, values: list[bytes], keys: list[bytes] | None = None) -> None:
    """Produces `values` to `topic` in order, with `keys` (none by default); an empty value is
    a tombstone (a null value), as a sink lands one."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap_servers, "enable.idempotence": True})
    for value, key in zip(values, keys or [None] * len(values), strict=True):
        producer.produce(topic, value=value or None, key=key)
        producer.poll(0)
    if producer.flush(START_TIMEOUT_S):
        raise RuntimeError(f"Kafka did not take every record of {topic}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument("--data", type=Path, required=True, help="the broker's folder (its logs and process id)")
    parser.add_argument("--port", type=int, default=9092)
    args = parser.parse_args()
    if args.action == "down":
        stop(args.data)
        return
    broker = Broker(args.data.resolve(), args.port)
    broker.start()
    print(f"Kafka listens on {broker.bootstrap_servers} (data in {args.data}; stop it with `make kafka-down`)")


if __name__ == "__main__":
    main()
