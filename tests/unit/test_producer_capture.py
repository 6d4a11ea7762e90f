"""The conformance capture runs its workload once each Debezium engine has committed a position
past its snapshot: a producer that crashed before such a commit would snapshot again on its
restart rather than send its last batch again."""

from __future__ import annotations

from pathlib import Path

from cdc_tools.producers.capture import _streaming_position_committed

# The engine's offsets file: a Java-serialized map whose key and value are JSON texts.
SERIALIZED = b"\xac\xed\x00\x05sr\x00\x11java.util.HashMap"
PARTITION = b'$["conformance",{"server":"mariadb"}]'


def test_only_a_streaming_position_counts_as_committed(tmp_path: Path) -> None:
    offsets = tmp_path / "offsets.dat"
    assert not _streaming_position_committed(offsets)
    offsets.write_bytes(SERIALIZED + PARTITION + b'{"file":"binlog.000001","pos":4,"snapshot":"INITIAL"}x')
    assert not _streaming_position_committed(offsets)
    # The engine truncates the file before each rewrite, and writes Java's header first: until
    # the map's end is written, it holds no position yet.
    offsets.write_bytes(b"")
    assert not _streaming_position_committed(offsets)
    offsets.write_bytes(SERIALIZED[:4])
    assert not _streaming_position_committed(offsets)
    offsets.write_bytes(SERIALIZED + PARTITION + b'{"file":"binlog.000001","pos":82609,"gtids":"0-1-64"}x')
    assert _streaming_position_committed(offsets)
