"""`cdc-generate`: one logical change stream encoded in every format, with expected results."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.writer import DEFAULT_FILE_BYTES, generate

_SIZE = re.compile(r"^(\d+)([KMG]?)B?$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes from '1048576', '512K', '64M', '1G' (powers of 1024)."""
    match = _SIZE.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 64M)")
    number, unit = match.groups()
    size = int(number) * 1024 ** " KMG".index(unit.upper() or " ")
    if size <= 0:
        raise argparse.ArgumentTypeError("the size must be positive")
    return size


def parse_formats(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in FORMATS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown format(s) {unknown}; known: {', '.join(FORMATS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cdc-generate",
        description=(
            "Generate one logical CDC stream (a fixed prefix with every edge case, then seeded "
            "random statements) encoded in each format as landed files under OUT/<format>/, "
            "with the expected row and schema changes under OUT/_expected/<format>/."
        ),
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder (a landing root)")
    parser.add_argument(
        "--messages",
        type=int,
        required=True,
        help="statements in the stream: one message each in cloudcanal_json, "
        "one or more in canal_json, one per row in debezium_json and "
        "kafka_river_json",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--formats",
        type=parse_formats,
        default=list(FORMATS),
        help=f"comma-separated (default all: {','.join(FORMATS)})",
    )
    parser.add_argument(
        "--file-size", type=parse_size, default=DEFAULT_FILE_BYTES, help="roll landed files at this size (default 64M)"
    )
    parser.add_argument(
        "--avro-encoding",
        choices=("json", "binary"),
        default="json",
        help="land the Avro formats as JSON-encoded lines (.jsonl, default) or "
        "as binary object container files (.avro)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.messages < 0:
        parser.error("--messages must be >= 0")
    counts = generate(
        args.out,
        args.messages,
        args.seed,
        args.formats,
        args.file_size,
        progress=not args.quiet,
        avro_encoding=args.avro_encoding,
    )
    if not args.quiet:
        for name, count in counts.items():
            print(
                f"{name}: {count.lines} lines in {len(count.files)} file(s), "
                f"{count.row_changes} row changes, {count.schema_changes} schema changes",
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
