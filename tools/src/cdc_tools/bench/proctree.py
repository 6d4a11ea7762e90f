"""Peak resident memory and CPU time of a process tree (the benchmark and everything it starts:
dbt, the Spark JVMs, Python workers), sampled from /proc (Linux).

CPU seconds matter on a shared machine: wall time grows with other people's load, the CPU
time a step needs much less so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcStat:
    parent: int
    cpu_ticks: int  # user + system time of the process itself (not of its children)


def parse_stat(stat: str) -> ProcStat:
    """A /proc/<pid>/stat line (the command name may hold spaces and ')')."""
    fields = stat[stat.rindex(")") + 2 :].split()
    return ProcStat(parent=int(fields[1]), cpu_ticks=int(fields[11]) + int(fields[12]))


def descendants(root: int, parents: dict[int, int]) -> set[int]:
    """`root` and every process below it, given each process's parent."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(children.get(pid, ()))
    return tree


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:  # the process ended meanwhile
        return None


def snapshot(root: int) -> tuple[dict[int, int], dict[int, int]]:
    """Resident bytes of `root` and each of its descendants now, and each one's CPU ticks so far."""
    stats = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (stat := _read(entry / "stat")) is not None:
            stats[int(entry.name)] = parse_stat(stat)
    resident = {}
    ticks = {}
    # The root may have ended since the listing: only processes that were read count.
    for pid in descendants(root, {pid: stat.parent for pid, stat in stats.items()}) & stats.keys():
        if (statm := _read(PROC / str(pid) / "statm")) is not None:
            resident[pid] = int(statm.split()[1]) * PAGE_BYTES
        ticks[pid] = stats[pid].cpu_ticks
    return resident, ticks


def lasting_bytes(resident: dict[int, int], previous: set[int]) -> int:
    """The resident bytes of the processes also seen in the previous sample. A process forked by
    the JVM (Hadoop's `readlink` and `chmod`, hundreds a build) shows the JVM's pages as its own
    until it execs: counted, one sample would hold the JVM twice."""
    return sum(size for pid, size in resident.items() if pid in previous)


class TreeSampler:
    """Samples the tree every `interval` seconds while running: peak resident bytes (of the
    processes seen in two samples in a row), and the CPU seconds of the processes below the
    root (the last `interval` of each is missed)."""

    def __init__(self, root: int | None = None, interval: float = 0.5) -> None:
        self.root = root if root is not None else os.getpid()
        self.interval = interval
        self.peak_bytes = 0
        self._ticks: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        previous: set[int] = set()
        while True:
            resident, ticks = snapshot(self.root)
            self.peak_bytes = max(self.peak_bytes, lasting_bytes(resident, previous))
            previous = set(resident)
            for pid, value in ticks.items():
                if pid != self.root:
                    self._ticks[pid] = max(self._ticks.get(pid, 0), value)
            if self._stop.wait(self.interval):
                return

    @property
    def cpu_seconds(self) -> float:
        return sum(self._ticks.values()) / CLOCK_TICKS

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@contextmanager
def sampled_tree() -> Iterator[TreeSampler]:
    """Samples while the block runs; read `.peak_bytes` and `.cpu_seconds` after it."""
    sampler = TreeSampler()
    sampler.start()
    try:
        yield sampler
    finally:
        sampler.stop()
