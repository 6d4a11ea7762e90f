"""What the hostile-input test needs to know of a format's messages: `FormatRules`, which each
encoder declares as `RULES` (where its operation code, names, images and event time are, which
fields the staging reads and their JSON types, what a missing field makes of a message, whether
a line may be a batch, how it spells NULL), and the pieces several formats' rules share. The
mutation strategies that use them are the test's own (tests/support/hostile_inputs.py).

Expected outcomes are {message_index: {(disposition, reason), ...}}: message_index None is a line
that gives no message (a blank line, a batch that is not JSON).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]
Path = tuple[str | int, ...]
Outcome = tuple[str, str | None]  # (disposition, reason)
Expected = dict[int | None, frozenset[Outcome]]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def used(disposition: str) -> Expected:
    return {0: frozenset({(disposition, None)})}


def rejected(reason: str, message_index: int | None = 0) -> Expected:
    return {message_index: frozenset({("rejected", reason)})}


def skipped(reason: str) -> Expected:
    return {0: frozenset({("skipped", reason)})}


@dataclass(frozen=True)
class EventTime:
    """Where the staging reads a message's event time (relative to `FormatRules.root`) and how
    the format spells a time there: the encoder's own spelling of an epoch-ms time."""

    path: Path
    spell: Callable[[int], Any]
    # False where the staging reads the time elsewhere (TiCDC's `_tidb.commitTs` wins over `es`).
    read_here: Callable[[Message], bool] = lambda message: True


@dataclass(frozen=True)
class FormatRules:
    operation: Path
    operation_codes: frozenset[str]
    fields: dict[Path, frozenset[str]]  # fields the staging reads -> their allowed JSON types
    kind: Callable[[Message], str]  # row_change or schema_change
    missing_reason: Callable[[Message, Path], str | None]  # None: the message is still used
    database: Path
    table: Path
    add_column: Callable[[Message, str, Any], None]  # the column in every row image
    blank_line: Expected
    batches: bool
    mutations: tuple[str, ...]
    root: Callable[[Message], Message] = lambda message: message  # where `fields` are
    serialize: Callable[[Any], str] = dumps
    mutable: Callable[[Message], bool] = lambda message: True  # a message mutants may copy
    column_name_key: str | None = None  # images as arrays of entries naming their column by this key
    object_name: Path | None = None  # "<database>.<table>" in one field (then no "." in a database)
    unions: Callable[[Message], list[tuple[Path, str]]] | None = None  # (union, its unknown-branch reason)
    invalid_utf8: Expected | None = None  # when a string with U+FFFD is not used as a value
    avro_schema: dict[str, Any] | None = None  # records also land as binary container files
    event_time: EventTime | None = None  # where the message's event time is, if it has one
    # A column NULL in every row image (as the format spells NULL), or (True) left out of them.
    null_column: Callable[[Message, str, bool], None] | None = None
    container_mutations: tuple[str, ...] = ()  # the classes of its binary container files
    # Where a message names its table besides `table` (Debezium's `tableChanges` ids), renamed too.
    rename_table: Callable[[Message, str, str], None] | None = None


def get(message: Message, path: Path) -> Any:
    value: Any = message
    for key in path:
        if isinstance(value, list) and isinstance(key, int) and key < len(value):
            value = value[key]
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def put(message: Message, path: Path, value: Any) -> None:
    for key in path[:-1]:
        message = message.setdefault(key, {})
    message[path[-1]] = value


def delete(message: Message, path: Path) -> None:
    parent = get(message, path[:-1]) if len(path) > 1 else message
    if isinstance(parent, dict):
        parent.pop(path[-1], None)


CANAL_ROW = ("INSERT", "UPDATE", "DELETE")
# The mutation classes of every format, JSON or Avro's JSON encoding.
EVERY_FORMAT_MUTATIONS = (
    "lone_surrogate",
    "empty_column_name",
    "leading_whitespace",
    "implausible_time",
    "null_key_value",
    "long_names",
    "case_twin_columns",
)
CANAL_DDL = ("CREATE", "ALTER", "ERASE", "QUERY", "TRUNCATE", "RENAME", "CINDEX", "DINDEX")
# The mutation classes of a JSON format that batches; a format that does not leaves out mixed_batch.
JSON_MUTATIONS = (
    "truncated",
    "two_values",
    "wrong_type",
    "missing_field",
    "unknown_operation",
    "blank_line",
    "not_an_object",
    "mixed_batch",
    "wide_image",
    "huge_value",
    "deep_nesting",
    "invalid_utf8",
    "non_numeric_number",
    "duplicate_key",
    "hostile_names",
    "extreme_number",
    *EVERY_FORMAT_MUTATIONS,
)


def canal_missing(op_field: str, old_field: str, database_fields: tuple[str, ...]) -> Callable:
    """Canal and CloudCanal: what a message lacking `path` becomes."""

    def reason(message: Message, path: Path) -> str | None:
        op = message.get(op_field)
        name = path[0]
        if name == op_field:
            return "missing_event_type"
        if name in database_fields and not any(message.get(f) for f in database_fields if f != name):
            return "missing_database"
        if op not in CANAL_ROW:
            return "missing_sql" if name == "sql" and op != "TRUNCATE" and not message.get("tableChanges") else None
        if name == "table":
            return "missing_table"
        if name == "data" and not (op == "DELETE" and message.get(old_field)):
            return "missing_row_image"
        if name == old_field and op == "UPDATE":
            return "missing_old_image"
        return None

    return reason


def add_to_images(*image_fields: str) -> Callable[[Message, str, Any], None]:
    def add(message: Message, column: str, value: Any) -> None:
        for name in image_fields:
            for image in message.get(name) or []:
                if name == "old" and message.get("type") == "UPDATE":
                    continue  # canal `old` holds the changed columns only
                image[column] = value

    return add


def null_in_images(*image_fields: str, root: Callable[[Message], Message] = lambda m: m) -> Callable:
    """A column made JSON null in (or removed from) every row image that holds it: images that
    are objects, alone or in an array, under `image_fields` of the message's `root`."""

    def null(message: Message, column: str, remove: bool) -> None:
        for name in image_fields:
            images = root(message).get(name)
            for image in images if isinstance(images, list) else [images]:
                if isinstance(image, dict) and column in image:
                    if remove:
                        del image[column]
                    else:
                        image[column] = None

    return null


AVRO_MUTATIONS = (
    "truncated",
    "two_values",
    "wrong_type",
    "missing_field",
    "unknown_operation",
    "blank_line",
    "not_an_object",
    "wide_image",
    "huge_value",
    "invalid_utf8",
    "duplicate_key",
    "hostile_names",
    "unknown_branch",
    *EVERY_FORMAT_MUTATIONS,
)
# Binary container files (`container_mutants`): valid records, one per block, then one damaged
# record; or every record valid, in compressed blocks.
CONTAINER_MUTATIONS = ("unknown_branch_index", "damaged_container", "snappy_container", "deflate_container")


def image_value_unions(images: tuple[str, ...], inner: Path, reason: str) -> Callable:
    """The (non-null) unions of every column value of `images` (each an {"array": [...]} union)."""

    def unions(message: Message) -> list[tuple[Path, str]]:
        paths = [
            (name, "array", index, *inner)
            for name in images
            for index, _ in enumerate(get(message, (name, "array")) or [])
        ]
        return [(path, reason) for path in paths if get(message, path) is not None]

    return unions


def add_to_avro_images(value_of: Callable[[Any], dict[str, Any]], type_number: int) -> Callable:
    """A column appended to `fields` and to every row image, its value wrapped by `value_of`."""

    def add(message: Message, column: str, value: Any) -> None:
        message["fields"]["array"].append({"name": column, "dataTypeNumber": type_number})
        for name in ("beforeImages", "afterImages"):
            if isinstance(message.get(name), dict):
                message[name]["array"].append(value_of(value))

    return add


def null_in_avro_images(null_value: Callable[[Any], Any]) -> Callable:
    """A column made NULL in every row image (its item, by its place in `fields`, as `null_value`
    makes it of the item), or removed from `fields` and the images."""

    def null(message: Message, column: str, remove: bool) -> None:
        names = [field["name"] for field in message["fields"]["array"]]
        if column not in names:
            return
        at = names.index(column)
        for name in ("beforeImages", "afterImages"):
            if isinstance(message.get(name), dict):
                items = message[name]["array"]
                if remove:
                    del items[at]
                else:
                    items[at] = null_value(items[at])
        if remove:
            del message["fields"]["array"][at]

    return null


def union_fields(schema: dict[str, Any]) -> tuple[str, ...]:
    """The fields of an Avro record schema whose type is a union."""
    return tuple(field["name"] for field in schema["fields"] if isinstance(field["type"], list))


def enum_symbols(schema: dict[str, Any], field_name: str) -> tuple[str, ...]:
    """The symbols of the enum a record field holds (directly, or as a union's branch)."""
    (field,) = [field for field in schema["fields"] if field["name"] == field_name]
    branches = field["type"] if isinstance(field["type"], list) else [field["type"]]
    (enum,) = [branch for branch in branches if isinstance(branch, dict) and branch.get("type") == "enum"]
    return tuple(enum["symbols"])
