"""`make bench`'s equivalent step (tools/src/cdc_tools/bench/equivalent.py) as the bench runs it:
a child process with Delta's and spark-avro's jars, over a generated landing of every format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_tools.bench.landing import Landing, land, link_segment
from cdc_tools.bench.spark import read_result
from cdc_tools.generator.formats import FORMATS
from support.dbt_harness import REPO


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Landing:
    return land(tmp_path_factory.mktemp("bench") / "segments", 2000, seed=3, max_file_bytes=64 * 1024)


def test_equivalent_job_keeps_every_change_of_every_format_once(landing: Landing, tmp_path: Path) -> None:
    """The hand-written equivalent over the landing's history, as `make bench` runs it: every
    format's row changes, redelivered copies dropped, a version each, and the same current rows
    in every format (each carries the same stream)."""
    root = tmp_path / "landing"
    for segment in ("small", "rest"):
        link_segment(landing, segment, root)
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(landing.primary_keys))
    jars = str(REPO / "jvm" / "jars" / "spark-4.0" / "*")
    command = [sys.executable, "-m", "cdc_tools.bench.equivalent", str(root), str(tmp_path / "warehouse"), str(keys)]
    done = subprocess.run(
        [*command, "--jars", jars, "--driver-memory", "1g"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = read_result(done.stdout)
    history = [landing.segments["small"], landing.segments["rest"]]
    assert result["row_changes"] == sum(segment.row_changes for segment in history)
    assert result["row_versions"] == result["row_changes"]
    assert result["rejected_lines"] == 0
    assert result["current_rows"] > 0 and result["current_rows"] % len(FORMATS) == 0
