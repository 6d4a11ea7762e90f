"""Hostile landed lines for every format: hypothesis strategies that mutate valid messages, each
mutant carrying the outcome the staging must give it.

A format is described once, by the `FormatRules` its generator encoder declares (`RULES`: where
its operation code, names and images are, which fields the staging reads and their JSON types,
what a missing field means, whether a line may be a batch). Mutation classes are strategies built
from those rules; `MUTATIONS` maps a class name to its strategy factory and
`FormatRules.mutations` lists the classes a format takes. `FORMAT_RULES` holds the rules of every
format the project's registry names.

The Avro formats (dts_avro, oms_avro) land their records as lines in Avro's JSON encoding and as
binary container files. Their lines take the JSON classes that apply to a record (truncated,
two_values, blank_line, not_an_object, wrong_type of each field as a whole, missing_field,
unknown_operation, hostile_names, wide_image, huge_value, invalid_utf8 inside a string,
duplicate_key, lone_surrogate, empty_column_name, leading_whitespace, implausible_time,
null_key_value, long_names, case_twin_columns) and `unknown_branch`: a union of the record or of a column value
under a branch name the schema does not have. Their container files (`container_mutants`, the classes
`FormatRules.container_mutations` names) hold records one per block: valid records, then one
damaged record, a union index out of range (`unknown_branch_index`) or its block cut short
(`damaged_container`), where the records before it are used and the damage is one
`invalid_avro_container` row; valid records in snappy or deflate blocks (`snappy_container`,
`deflate_container`), all used; or (OMS) a record whose string holds bytes that are not UTF-8,
then valid records (`invalid_utf8_container`), all used, the bad bytes read as U+FFFD.

Expected outcomes are {message_index: {(disposition, reason), ...}}: message_index None is a line
that gives no message (a blank line, a batch that is not JSON).
"""

from __future__ import annotations

import copy
import io
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import fastavro
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from cdc_tools.avro_json import JsonDatums
from cdc_tools.generator.formats import FORMATS
from cdc_tools.generator.mutation_rules import (
    Expected,
    FormatRules,
    Message,
    Path,
    delete,
    dumps,
    get,
    put,
    rejected,
    skipped,
    used,
)
from cdc_tools.generator.stream import CUSTOMERS, IMPORT_BATCH, NOTES, ORDERS
from cdc_tools.registry import project_formats
from support.dbt_harness import REPO

# The rules of every format the project reads, in its registry's order.
FORMAT_RULES: dict[str, FormatRules] = {name: FORMATS[name].rules for name in project_formats(REPO)}
JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array")
SQL_AND_QUOTES = [
    "x'; drop table cdc.fct_row_changes; --",
    'we"ird`; drop view cdc.fct_rejected_messages; /*',
    "`; select 1; --",
    "'' or 1=1",
    "\\'; drop schema cdc cascade; --",
    "{{ var('landing_root') }}",
    "${jndi:ldap://x}",
    "tab\tline\nbreak",
]
NAME_ALPHABET = "'\"`;\\-/*() =%$.{}\n\tabcXYZ_0é☕"
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf"]
NON_NUMERIC = ["NaN", "Infinity", "-Infinity"]
# Numbers a double does not hold as written: beyond its range, below its smallest, a negative
# zero, an exponent, a trailing zero; and integers of more digits than a decimal(38) has.
EXTREME_NUMBERS = st.one_of(
    st.sampled_from(["1e400", "-1e400", "1e-400", "-0", "-0.0", "1E+5", "0.10"]),
    st.integers(10**38, 10**39 - 1).map(str),
    st.integers(10**44, 10**45 - 1).map(lambda n: f"-{n}"),
)
# \u escapes of half a UTF-16 surrogate pair (a high one alone, before a letter or another
# escape, a low one alone, a pair in the wrong order): no character. SURROGATE_PAIR is a whole one, and its character.
LONE_SURROGATES = ["\\ud800", "\\udbffx", "\\udc00", "\\ude00\\ud83d", "\\ud800\\u0041"]
SURROGATE_PAIR = ("\\ud83d\\ude00", "😀")
# More characters than the staging keeps in one value.
VALUE_LIMIT = 20_000_000
# The keys of the generator's tables: the hostile build configures them (var cdc_primary_keys, every
# statement's table's key), which overrides the keys a message names.
TABLE_KEYS = {(t.database, t.name): t.key for t in (CUSTOMERS, ORDERS, NOTES, IMPORT_BATCH)}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The event times the staging takes: [1990-01-01, 2200-01-01) UTC.
PLAUSIBLE_TIMES = (datetime(1990, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC))
# What Hive escapes in a partition folder's value (as %XX), and the longest file name.
PARTITION_ESCAPED = frozenset({*map(chr, range(0x01, 0x20)), *"\"#%'*/:=?\\\x7f{[]^"})
MAX_FOLDER_BYTES = 255


@dataclass(frozen=True)
class Source:
    """One valid message as landed: the statement it encodes, its line and its parsed JSON."""

    seq: int
    line: str
    message: Message


@dataclass(frozen=True)
class Mutant:
    """One hostile landed line and what the staging must make of it."""

    mutation: str
    line: bytes
    expected: Expected
    # Facts of the line's messages: column -> value every fact row of the line must have.
    facts: dict[str, Any] = field(default_factory=dict)
    # Columns every row image of the line must hold with these values (a pattern: matching it).
    image: dict[str, Any] = field(default_factory=dict)
    # message_index -> statement seq, for valid messages inside a hostile line (mixed batches).
    valid_messages: dict[int, int] = field(default_factory=dict)


def messages_of(line: str) -> list[dict[str, Any]]:
    """The messages of a valid landed line: one, or a batch's."""
    value = json.loads(line)
    return value if isinstance(value, list) else [value]


def mutable_sources(rules: FormatRules, lines: list[tuple[int, str]]) -> list[Source]:
    """The messages of valid (seq, line)s that mutants may copy."""
    return [Source(seq, line, m) for seq, line in lines for m in messages_of(line) if rules.mutable(m)]


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def partition_folder(column: str, name: str) -> str:
    """The folder of a partition of `column` (database_name, table_name) holding `name`, as Spark
    names it: `<column>=<name>` with each character of PARTITION_ESCAPED as %XX (3 bytes). A
    name whose folder is over MAX_FOLDER_BYTES bytes of UTF-8 is rejected (name_too_long)."""
    return column + "=" + "".join(f"%{ord(c):02X}" if c in PARTITION_ESCAPED else c for c in name)


def folder_too_long(column: str, name: str) -> bool:
    return len(partition_folder(column, name).encode()) > MAX_FOLDER_BYTES


def read_time(value: Any) -> datetime:
    """An event time as the staging reads it: an epoch number's unit by its magnitude (below 1e11
    seconds, then ms, µs, ns), a text as an ISO-8601 time (UTC unless it says otherwise), a union
    (Avro's JSON encoding) as its branch's value."""
    if isinstance(value, dict):
        ((_, value),) = value.items()
    if isinstance(value, str):
        moment = datetime.fromisoformat(value)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    for limit, per_second in ((10**11, 1), (10**14, 10**3), (10**17, 10**6), (None, 10**9)):
        if limit is None or value < limit:
            return EPOCH + timedelta(microseconds=value * 10**6 // per_second)
    raise AssertionError(value)


def is_plausible(moment: datetime) -> bool:
    return PLAUSIBLE_TIMES[0] <= moment < PLAUSIBLE_TIMES[1]


# -------------------------------------------------------------------------------- mutations


def json_value_of(json_type: str) -> st.SearchStrategy[Any]:
    return {
        "string": st.text(max_size=8),
        "integer": st.integers(-(2**40), 2**40),
        "number": st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x)),
        "boolean": st.booleans(),
        "object": st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
        "array": st.lists(st.integers(), max_size=2),
    }[json_type]


def _line_of(rules: FormatRules, message: Message) -> bytes:
    return rules.serialize(message).encode()


def _mutant(rules: FormatRules, name: str, message: Message, expected: Expected, **checks: Any) -> Mutant:
    return Mutant(name, _line_of(rules, message), expected, **checks)


def _row_changes(rules: FormatRules, sources: list[Source]) -> list[Source]:
    return [s for s in sources if rules.kind(s.message) == "row_change"]


def names_of(rules: FormatRules, message: Message) -> tuple[str | None, str | None]:
    """A message's database and table (None where it has none)."""
    root = rules.root(message)
    if rules.object_name:
        database, _, table = (get(root, rules.object_name) or "").partition(".")
        return database, table or None
    return get(root, rules.database), get(root, rules.table) or None


def _rename(rules: FormatRules, message: Message, database: str, table: str) -> dict[str, Any]:
    """`message` moved to `database` and `table` (a database-level DDL keeps its empty table):
    the names its facts must have."""
    root = rules.root(message)
    facts: dict[str, Any] = {"database_name": database}
    if rules.object_name:
        has_table = "." in get(root, rules.object_name)
        put(root, rules.object_name, f"{database}.{table}" if has_table else database)
        if has_table:
            facts["table_name"] = table
    else:
        put(root, rules.database, database)
        if get(root, rules.table):
            put(root, rules.table, table)
            facts["table_name"] = table
        if rules.rename_table:
            rules.rename_table(message, database, table)
    return facts


def truncated(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        source = draw(st.sampled_from(sources))
        data = source.line.encode()
        cut = draw(st.integers(1, len(data) - 1))
        index = None if rules.batches and source.line.startswith("[") else 0
        return Mutant("truncated", data[:cut], rejected("malformed_json", index))

    return strategy()


def wrong_type(rules: FormatRules, sources: list[Source], path: Path) -> st.SearchStrategy[Mutant]:
    """`path` given a value of a JSON type the staging does not read there."""
    others = [t for t in JSON_TYPES if t not in rules.fields[path]]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(sources)).message)
        value = draw(st.sampled_from(others).flatmap(json_value_of))
        put(rules.root(message), path, value)
        return _mutant(rules, "wrong_type", message, rejected("invalid_field_type"))

    return strategy()


def missing_field(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A field the staging reads, left out or JSON null."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(sources)).message)
        root = rules.root(message)
        present = [path for path in rules.fields if get(root, path) is not None]
        path = draw(st.sampled_from(present))
        reason = rules.missing_reason(message, path)
        kind = rules.kind(message)
        if draw(st.booleans()):
            delete(root, path)
        else:
            put(root, path, None)
        # A field's absence may make a message a control one (a Debezium table statement's table).
        expected = used(kind) if reason is None else skipped(reason) if reason == "control_event" else rejected(reason)
        return _mutant(rules, "missing_field", message, expected)

    return strategy()


def unknown_operation(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(sources)).message)
        code = draw(
            st.one_of(
                st.text(min_size=1, max_size=12), st.sampled_from(["upsert", "insert", "C", "x", "MERGE"])
            ).filter(lambda c: c not in rules.operation_codes)
        )
        put(rules.root(message), rules.operation, code)
        return _mutant(rules, "unknown_operation", message, rejected("unknown_event_type"))

    return strategy()


def two_values(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A valid line and another JSON value after it on the same line (two messages run
    together, a stray value): not one JSON value, so malformed; none of it is used."""

    # A tombstone (an empty or null value) followed by a value would be that value alone.
    values = [s for s in sources if s.line.strip() not in ("", "null")]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        source = draw(st.sampled_from(values))
        after = draw(
            st.one_of(st.sampled_from(values).map(lambda s: s.line), st.sampled_from(["{}", "1", "null", '"x"']))
        )
        line = source.line + draw(st.sampled_from(["", " ", "\t"])) + after
        index = None if rules.batches and source.line.startswith("[") else 0
        return Mutant("two_values", line.encode(), rejected("malformed_json", index))

    return strategy()


def blank_line(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    return st.text(alphabet=" \t", max_size=6).map(lambda text: Mutant("blank_line", text.encode(), rules.blank_line))


def not_an_object(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A JSON value that is not an object (for a batch format: an empty batch)."""
    scalars = st.one_of(
        st.integers(), st.text(max_size=10), st.booleans(), st.floats(allow_nan=False, allow_infinity=False)
    )
    values = scalars if rules.batches else st.one_of(scalars, st.lists(st.integers(), max_size=3))
    strategy = values.map(lambda v: Mutant("not_an_object", dumps(v).encode(), rejected("not_a_json_object")))
    if rules.batches:
        return st.one_of(strategy, st.just(Mutant("not_an_object", b"[]", rejected("empty_batch", None))))
    return strategy


def mixed_batch(rules: FormatRules, sources: list[Source], spare: list[Source]) -> st.SearchStrategy[Mutant]:
    """A JSON array of valid messages (statements landed nowhere else) and bad ones."""
    bad_objects = st.one_of(
        wrong_type(rules, sources, rules.operation), unknown_operation(rules, sources), missing_field(rules, sources)
    )
    bad_values = st.one_of(
        st.integers(), st.text(max_size=6), st.none(), st.booleans(), st.lists(st.integers(), max_size=2)
    )

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        good = draw(st.lists(st.sampled_from(spare), min_size=1, max_size=3, unique_by=lambda s: s.seq))
        bad = draw(st.lists(st.one_of(bad_objects, bad_values), min_size=1, max_size=3))
        elements: list[tuple[str, Any]] = [("good", s) for s in good] + [("bad", b) for b in bad]
        order = draw(st.permutations(range(len(elements))))
        texts, expected, valid = [], {}, {}
        for index, position in enumerate(order):
            what, element = elements[position]
            if what == "good":
                texts.append(dumps(element.message))
                expected[index] = frozenset({(rules.kind(element.message), None)})
                valid[index] = element.seq
            elif isinstance(element, Mutant):
                texts.append(element.line.decode())
                expected[index] = element.expected[0]
            else:
                texts.append(dumps(element))
                expected[index] = frozenset({("rejected", "not_a_json_object")})
        line = ("[" + ",".join(texts) + "]").encode()
        return Mutant("mixed_batch", line, expected, valid_messages=valid)

    return strategy()


def _with_column(rules: FormatRules, mutation: str, column: str, value: Any, text: str | None = None) -> Callable:
    """A strategy step: a valid message with `column` added to its row images."""

    @st.composite
    def strategy(draw: st.DrawFn, sources: list[Source]) -> Mutant:
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        rules.add_column(message, column, value)
        return _mutant(rules, mutation, message, used("row_change"), image={column: value if text is None else text})

    return strategy


def wide_image(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        width = draw(st.integers(2000, 4000))
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        columns = {f"wide_{i:04d}": f"v{i}" for i in range(width)}
        for column, value in columns.items():
            rules.add_column(message, column, value)
        return _mutant(rules, "wide_image", message, used("row_change"), image=columns)

    return strategy()


def huge_value(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        size = draw(st.integers(1_000_000, 1_500_000))
        unit = draw(st.sampled_from(["x", "é", "☕", "\"'`;"]))
        value = unit * (size // len(unit.encode()))
        return draw(_with_column(rules, "huge_value", "huge", value)(sources))

    return strategy()


def deep_nesting(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A value nested arrays deep: within the JSON parser's depth limit (1000) it is kept as its
    JSON text; beyond it the message is malformed_json."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        depth = draw(st.one_of(st.integers(2, 200), st.integers(1500, 4000)))
        text = "[" * depth + "1" + "]" * depth
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        rules.add_column(message, "nested", "@@NESTED@@")
        line = _line_of(rules, message).replace(b'"@@NESTED@@"', text.encode())
        if depth > 1000:
            return Mutant("deep_nesting", line, rejected("malformed_json"))
        return Mutant("deep_nesting", line, used("row_change"), image={"nested": text})

    return strategy()


def invalid_utf8(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """Bytes that are not UTF-8 inside a string value: the landing source reads them as U+FFFD."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        bad = draw(st.sampled_from(INVALID_UTF8))
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        # Named by the bytes: two sequences that both read as one U+FFFD give different messages.
        column = f"raw_{bad.hex()}"
        rules.add_column(message, column, "a@@BAD@@b")
        line = _line_of(rules, message).replace(b"@@BAD@@", bad)
        if rules.invalid_utf8 is not None:
            return Mutant("invalid_utf8", line, rules.invalid_utf8)
        # Java's decoder gives one U+FFFD per bad byte sequence: one or more.
        return Mutant("invalid_utf8", line, used("row_change"), image={column: re.compile("a\ufffd+b")})

    return strategy()


def non_numeric_number(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """NaN or ±Infinity (not JSON) as a number field (where the format reads one) or a row value."""
    number_fields = [path for path, types in rules.fields.items() if types == {"integer"}]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        token = draw(st.sampled_from(NON_NUMERIC))
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        if number_fields and draw(st.booleans()):
            put(rules.root(message), draw(st.sampled_from(number_fields)), "@@NUM@@")
        else:
            rules.add_column(message, "number", "@@NUM@@")
        line = _line_of(rules, message).replace(b'"@@NUM@@"', token.encode())
        return Mutant("non_numeric_number", line, rejected("malformed_json"))

    return strategy()


def duplicate_key(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A key twice in one object: the message's own, or a row image's."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        source = draw(st.sampled_from([s for s in sources if rules.kind(s.message) == "row_change"]))
        message = copy.deepcopy(source.message)
        if draw(st.booleans()):
            key = draw(st.sampled_from(sorted(message)))
            twice = dumps(key) + ":" + dumps(draw(st.one_of(st.just(message[key]), st.text(max_size=5))))
            line = ("{" + twice + "," + _line_of(rules, message).decode()[1:]).encode()
        else:
            rules.add_column(message, "@@DUP@@", "x")
            column = draw(st.text(alphabet="abc", min_size=1, max_size=3))
            twice = f'{dumps(column)}:"1",{dumps(column)}:"2"'
            line = _line_of(rules, message).replace(b'"@@DUP@@":"x"', twice.encode())
            if rules.column_name_key:  # columns are an array of entries: repeat the name key in one
                key = dumps(rules.column_name_key)
                twice = f'{key}:"a",{key}:{dumps(column)}'
                line = _line_of(rules, message).replace(f'{key}:"@@DUP@@"'.encode(), twice.encode())
        return Mutant("duplicate_key", line, rejected("duplicate_key"))

    return strategy()


def hostile_names(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """Database, table and column names made of quotes, backticks, semicolons and SQL."""
    names = st.one_of(
        st.sampled_from(SQL_AND_QUOTES),
        st.text(alphabet=NAME_ALPHABET, min_size=1, max_size=24).filter(lambda n: n.strip() != ""),
    )

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        source = draw(st.sampled_from(sources))
        message = copy.deepcopy(source.message)
        # In "<database>.<table>" (`object_name`) a database's name cannot hold a ".".
        databases = names.filter(lambda n: "." not in n) if rules.object_name else names
        database, table, column = draw(databases), draw(names), draw(names)
        facts = _rename(rules, message, database, table)
        image: dict[str, Any] = {}
        if rules.kind(message) == "row_change":
            rules.add_column(message, column, "v")
            image[column] = "v"
        return _mutant(rules, "hostile_names", message, used(rules.kind(message)), facts=facts, image=image)

    return strategy()


def unknown_branch(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A union's value under a branch name the schema does not have (Avro's JSON encoding)."""
    assert rules.unions is not None
    # No segment of these names is a type of either schema (a branch is matched by its last one).
    names = st.one_of(
        st.sampled_from(["com.alibaba.dts.formats.avro.Unknown", "com.oceanbase.oms.avro.Bogus", "Strng", "x"]),
        st.text(alphabet="qwz_", min_size=1, max_size=8),
    )

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from([s for s in sources if rules.unions(s.message)])).message)
        path, reason = draw(st.sampled_from(rules.unions(message)))
        union = get(message, path)
        ((_, value),) = union.items()
        union.clear()
        union[draw(names)] = value
        return _mutant(rules, "unknown_branch", message, rejected(reason))

    return strategy()


def extreme_number(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A row value that is a JSON number no double or decimal holds as written: used, as its text."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        token = draw(EXTREME_NUMBERS)
        message = copy.deepcopy(draw(st.sampled_from(_row_changes(rules, sources))).message)
        rules.add_column(message, "number", "@@NUM@@")
        line = _line_of(rules, message).replace(b'"@@NUM@@"', token.encode())
        return Mutant("extreme_number", line, used("row_change"), image={"number": token})

    return strategy()


def lone_surrogate(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A string value holding a \\u escape of half a surrogate pair (no character: rejected), or
    of a whole pair (its character). The escape replaces a placeholder in the serialized line:
    the serializer would escape its backslash."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        source = draw(st.sampled_from(_row_changes(rules, sources)))
        message = copy.deepcopy(source.message)
        if draw(st.integers(0, 2)) > 0:
            rules.add_column(message, "text", draw(st.sampled_from(["a@@ESC@@b", "a@@ESC@@"])))
            escape = draw(st.sampled_from(LONE_SURROGATES))
            line = _line_of(rules, message).replace(b"@@ESC@@", escape.encode())
            return Mutant("lone_surrogate", line, rejected("invalid_unicode_escape"))
        escape, character = SURROGATE_PAIR
        checks: dict[str, Any]
        if rules.invalid_utf8 is None:
            rules.add_column(message, "text", "a@@ESC@@b")
            checks = {"image": {"text": f"a{character}b"}}
        else:  # its string values are bytes (one character a byte): the pair names the table
            database, _ = names_of(rules, message)
            assert database is not None
            checks = {"facts": {"table_name": f"t{character}"}}
            _rename(rules, message, database, "t@@ESC@@")
        line = _line_of(rules, message).replace(b"@@ESC@@", escape.encode())
        return Mutant("lone_surrogate", line, used("row_change"), **checks)

    return strategy()


def empty_column_name(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A column named "" in the row images."""
    return st.sampled_from(_row_changes(rules, sources)).map(
        lambda source: _mutant(
            rules, "empty_column_name", _with_added(rules, source.message, "", "x"), rejected("empty_column_name")
        )
    )


def _with_added(rules: FormatRules, message: Message, column: str, value: Any) -> Message:
    copied = copy.deepcopy(message)
    rules.add_column(copied, column, value)
    return copied


def leading_whitespace(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A valid line after spaces and tabs (a batch's `[` too), maybe followed by some: the
    outcome of the line itself, message by message."""
    lines = sorted({s.line for s in sources if all(rules.mutable(m) for m in messages_of(s.line))})
    blanks = st.text(alphabet=" \t", min_size=1, max_size=4)

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        line = draw(st.sampled_from(lines))
        messages = messages_of(line)
        if line.startswith("["):
            # The build tells changes by their message's text (cdc_change_identity), and Spark
            # gives a batch's elements their text anew, without the blanks: a field no format
            # reads keeps them apart from the valid line's messages, which they would redeliver.
            line = "[" + ",".join(dumps({**m, "padding": " \t"}) for m in messages) + "]"
        text = draw(blanks) + line + draw(st.one_of(st.just(""), blanks))
        expected = {index: frozenset({(rules.kind(m), None)}) for index, m in enumerate(messages)}
        return Mutant("leading_whitespace", text.encode(), expected)

    return strategy()


def implausible_time(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """An event time before 1990 or from 2200 on, as the format spells it (an epoch in its unit,
    a text): rejected. A message whose time is unknown (none, 0) is not drawn: it stays so."""
    event_time = rules.event_time
    assert event_time is not None
    timed = [
        s
        for s in sources
        if event_time.read_here(s.message) and get(rules.root(s.message), event_time.path) not in (None, 0, "")
    ]
    moments = st.one_of(
        st.datetimes(datetime(1970, 1, 1, 0, 0, 1), datetime(1989, 12, 31, 23, 59, 59, 999999)),
        st.datetimes(datetime(2200, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999)),
    )
    # An epoch's unit is read by its magnitude: milliseconds of early 1970 read as seconds of
    # 1990 to 2200 are a plausible time, not this class.
    values = moments.map(
        lambda moment: event_time.spell((moment.replace(tzinfo=UTC) - EPOCH) // timedelta(milliseconds=1))
    ).filter(lambda value: not is_plausible(read_time(value)))

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(timed)).message)
        put(rules.root(message), event_time.path, draw(values))
        return _mutant(rules, "implausible_time", message, rejected("implausible_timestamp"))

    return strategy()


def null_key_value(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A row change whose first key column is NULL in every row image, or missing from them:
    used, with no key (so that it is merged with no other row)."""
    null_column = rules.null_column
    assert null_column is not None
    keyed = [s for s in _row_changes(rules, sources) if names_of(rules, s.message) in TABLE_KEYS]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(keyed)).message)
        key = TABLE_KEYS[names_of(rules, message)][0]
        null_column(message, key, draw(st.booleans()))
        return _mutant(
            rules, "null_key_value", message, used("row_change"), facts={"primary_key": None}, image={key: None}
        )

    return strategy()


def value_too_large(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A string value of more than VALUE_LIMIT characters (tens of megabytes: one example)."""

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        size = draw(st.integers(VALUE_LIMIT + 1, VALUE_LIMIT + 1000))
        message = draw(st.sampled_from(_row_changes(rules, sources))).message
        value = draw(st.sampled_from("xy")) * size
        return _mutant(
            rules, "value_too_large", _with_added(rules, message, "large", value), rejected("value_too_large")
        )

    return strategy()


def long_names(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """Database and table names of up to 300 characters: used as hostile names are while their
    partition folders (`partition_folder`) fit a file name, else rejected (name_too_long)."""
    alphabets = st.sampled_from(["abcxyz_09", "ab%/:é☕ #", "☕"])

    @st.composite
    def names(draw: st.DrawFn) -> str:
        size = draw(st.integers(1, 300))
        name = draw(st.text(alphabet=draw(alphabets), min_size=size, max_size=size))
        return name if name.strip() else "x" + name[1:]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(sources)).message)
        facts = _rename(rules, message, draw(names()), draw(names()))
        if any(folder_too_long(column, name) for column, name in facts.items()):
            return _mutant(rules, "long_names", message, rejected("name_too_long"))
        return _mutant(rules, "long_names", message, used(rules.kind(message)), facts=facts)

    return strategy()


# Columns that Spark, ignoring case, takes for one another or for a replica's own column, and one
# that Delta's change data feed adds.
CASE_TWIN_IMAGE = {"Twin": "upper", "twin": "lower", "_OVERFLOW": "own", "_change_type": "feed"}


def case_twin_columns(rules: FormatRules, sources: list[Source]) -> st.SearchStrategy[Mutant]:
    """A row change whose columns' names differ only in case (Postgres allows "Case" beside
    case), one of them a replica's own column's name and one a column Delta's change data feed
    adds: used verbatim, each a replica column."""
    row_changes = [s for s in sources if rules.kind(s.message) == "row_change"]

    @st.composite
    def strategy(draw: st.DrawFn) -> Mutant:
        message = copy.deepcopy(draw(st.sampled_from(row_changes)).message)
        for column, value in CASE_TWIN_IMAGE.items():
            rules.add_column(message, column, value)
        return _mutant(rules, "case_twin_columns", message, used("row_change"), image=CASE_TWIN_IMAGE)

    return strategy()


# Classes drawn from (rules, sources). `plan` draws the other two itself: wrong_type once per field
# the format reads, mixed_batch from spare statements landed nowhere else.
MUTATIONS: dict[str, Callable[..., st.SearchStrategy[Mutant]]] = {
    "truncated": truncated,
    "two_values": two_values,
    "missing_field": missing_field,
    "unknown_operation": unknown_operation,
    "blank_line": blank_line,
    "not_an_object": not_an_object,
    "wide_image": wide_image,
    "huge_value": huge_value,
    "deep_nesting": deep_nesting,
    "invalid_utf8": invalid_utf8,
    "non_numeric_number": non_numeric_number,
    "duplicate_key": duplicate_key,
    "hostile_names": hostile_names,
    "unknown_branch": unknown_branch,
    "extreme_number": extreme_number,
    "lone_surrogate": lone_surrogate,
    "empty_column_name": empty_column_name,
    "leading_whitespace": leading_whitespace,
    "implausible_time": implausible_time,
    "null_key_value": null_key_value,
    "value_too_large": value_too_large,
    "long_names": long_names,
    "case_twin_columns": case_twin_columns,
}
# How many examples of each class a landing gets: the costly ones (megabytes) few.
EXAMPLES = {
    "wide_image": 2,
    "huge_value": 2,
    "deep_nesting": 8,
    "blank_line": 6,
    "value_too_large": 1,
    "empty_column_name": 3,
    "leading_whitespace": 6,
    "null_key_value": 6,
}
DEFAULT_EXAMPLES = 12


# ------------------------------------------------------------------- binary container files


@dataclass(frozen=True)
class Container:
    """A binary container file and its records in order: a valid statement's record (its seq) or
    a hostile one (a Mutant with no line: its outcome and checks). A damaged record (its block cut
    short or a union index out of range) is the file's last: reading stops there, and it is one
    `invalid_avro_container` row."""

    mutation: str
    data: bytes
    records: tuple[int | Mutant, ...]

    @property
    def seqs(self) -> tuple[int, ...]:
        """The statement of each valid record, in order."""
        return tuple(record for record in self.records if isinstance(record, int))


def _varint(number: int) -> bytes:
    """Avro's zig-zag varint of a long."""
    return _unsigned_varint((number << 1) ^ (number >> 63))


def _unsigned_varint(value: int) -> bytes:
    out = b""
    while value >= 0x80:
        out, value = out + bytes([value & 0x7F | 0x80]), value >> 7
    return out + bytes([value])


def _binary(schema: dict[str, Any], datum: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
    return out.getvalue()


def container_of(schema: dict[str, Any], lines: list[str]) -> tuple[bytes, int]:
    """A container file of JSON-encoded records, one block each, and where the last block's
    record bytes start."""
    datums = JsonDatums(schema)
    out = io.BytesIO()
    writer = fastavro.write.Writer(out, fastavro.parse_schema(schema), sync_interval=1)
    for line in lines:
        writer.write(datums(json.loads(line)))
        writer.flush()
    size = len(_binary(schema, datums(json.loads(lines[-1]))))
    return out.getvalue(), len(out.getvalue()) - 16 - size  # a block ends with its 16-byte sync marker


def snappy_literals(data: bytes) -> bytes:
    """`data` in Snappy's raw format as literals only: valid Snappy, which any decoder reads,
    written without a Snappy library (the format: its length as a varint, then elements; a
    literal's tag byte holds its length - 1 in its upper six bits, or 60 + the count of length
    bytes that follow, little-endian)."""
    out = _unsigned_varint(len(data))
    for start in range(0, len(data), 1 << 16):
        chunk = data[start : start + (1 << 16)]
        size = len(chunk) - 1
        if size < 60:
            out += bytes([size << 2])
        else:
            count = 1 if size < 256 else 2
            out += bytes([(59 + count) << 2]) + size.to_bytes(count, "little")
        out += chunk
    return out


# Each codec's block: the compressed records (Avro's snappy adds the CRC-32 of the uncompressed
# ones, big-endian; its deflate is raw, without zlib's header).
CODECS: dict[str, Callable[[bytes], bytes]] = {
    "null": lambda data: data,
    "snappy": lambda data: snappy_literals(data) + zlib.crc32(data).to_bytes(4, "big"),
    "deflate": lambda data: (lambda c: c.compress(data) + c.flush())(zlib.compressobj(9, zlib.DEFLATED, -15)),
}
# Container classes whose records are all valid, in blocks of a codec.
COMPRESSED = {"snappy_container": "snappy", "deflate_container": "deflate"}
SYNC_MARKER = b"hostile-sync-16B"


def container_file(schema: dict[str, Any], lines: list[str], codec: str) -> bytes:
    """A container file of JSON-encoded records, one block each, compressed by `codec`."""
    datums = JsonDatums(schema)
    metadata = {"avro.schema": json.dumps(schema).encode(), "avro.codec": codec.encode()}
    out = b"Obj\x01" + _binary({"type": "map", "values": "bytes"}, metadata) + SYNC_MARKER
    for line in lines:
        block = CODECS[codec](_binary(schema, datums(json.loads(line))))
        out += _varint(1) + _varint(len(block)) + block + SYNC_MARKER
    return out


def damaged_container(
    rules: FormatRules, sources: list[Source], valid: list[Source], mutation: str
) -> st.SearchStrategy[Container]:
    """`valid` records, then a copy of one of `sources` damaged by `mutation`."""
    schema = rules.avro_schema
    assert schema is not None
    unions = [(number, field) for number, field in enumerate(schema["fields"]) if isinstance(field["type"], list)]

    @st.composite
    def strategy(draw: st.DrawFn) -> Container:
        source = draw(st.sampled_from(sources))
        data, start = container_of(schema, [s.line for s in valid] + [source.line])
        if mutation == "damaged_container":  # cut inside the last block, before its sync marker
            data = data[: draw(st.integers(start - 1, len(data) - 17))]
        else:  # a union's branch index (one byte while below 64) past its last branch
            number, field = draw(st.sampled_from([u for u in unions if source.message.get(u[1]["name"]) is not None]))
            datum = JsonDatums(schema)(json.loads(source.line))
            at = start + len(_binary({**schema, "fields": schema["fields"][:number]}, datum))
            index = draw(st.integers(len(field["type"]), 63))
            data = data[:at] + _varint(index) + data[at + 1 :]
        damage = Mutant(mutation, b"", rejected("invalid_avro_container"))
        return Container(mutation, data, (*(s.seq for s in valid), damage))

    return strategy()


def invalid_utf8_container(
    rules: FormatRules, sources: list[Source], valid: list[Source], number: int
) -> st.SearchStrategy[Container]:
    """A copy of a row change of `sources` with a string column whose bytes are not UTF-8 (the
    string's encoded bytes patched in place, its length kept), then `valid` records: every
    record is read, the bad bytes as U+FFFD. The column is named by the bytes and the
    container's `number`: two containers drawing one record and bytes would otherwise hold one
    change twice (a redelivery)."""
    schema = rules.avro_schema
    assert schema is not None

    @st.composite
    def strategy(draw: st.DrawFn) -> Container:
        bad = draw(st.sampled_from(INVALID_UTF8))
        message = copy.deepcopy(draw(st.sampled_from(_row_changes(rules, sources))).message)
        column, marker = f"raw_{bad.hex()}_{number}", "~" * len(bad)
        rules.add_column(message, column, f"@@{marker}@@")
        # Uncompressed blocks, so that the string's bytes are there to patch.
        data = container_file(schema, [dumps(message)] + [s.line for s in valid], "null")
        placeholder = f"@@{marker}@@".encode()
        assert placeholder in data
        data = data.replace(placeholder, b"@@" + bad + b"@@")
        hostile = Mutant("invalid_utf8_container", b"", used("row_change"), image={column: re.compile("@@\ufffd+@@")})
        return Container("invalid_utf8_container", data, (hostile, *(s.seq for s in valid)))

    return strategy()


def compressed(rules: FormatRules, valid: list[Source], codec: str) -> Container:
    """`valid` records in blocks compressed by `codec` (snappy_container, deflate_container)."""
    assert rules.avro_schema is not None
    data = container_file(rules.avro_schema, [s.line for s in valid], codec)
    return Container(f"{codec}_container", data, tuple(s.seq for s in valid))


def container_mutants(
    rules: FormatRules, sources: list[Source], statements: list[list[Source]], seed: int
) -> list[Container]:
    """One container file per statement group of `statements` (each statement's records kept
    together), the format's container classes taken in turn."""
    containers = []
    for number, group in enumerate(statements):
        mutation = rules.container_mutations[number % len(rules.container_mutations)]
        if mutation in COMPRESSED:
            containers.append(compressed(rules, group, COMPRESSED[mutation]))
            continue
        if mutation == "invalid_utf8_container":
            strategy = invalid_utf8_container(rules, sources, group, number)
        else:
            strategy = damaged_container(rules, sources, group, mutation)
        containers += draw_examples(strategy, 1, seed + number)
    return containers


def draw_examples(strategy: st.SearchStrategy[Any], count: int, seed: int) -> list[Any]:
    """`count` examples of `strategy`, the same for the same seed (hypothesis, derandomized by
    the seed, nothing read from or written to its example database)."""
    found: list[Any] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: Any) -> None:
        found.append(example)

    collect()
    return found[:count]


def plan(rules: FormatRules, sources: list[Source], spare: list[Source], seed: int) -> list[Mutant]:
    """Every mutation class the format takes, and a wrong JSON type for every field it reads."""
    mutants: list[Mutant] = []
    for number, path in enumerate(rules.fields):
        mutants += draw_examples(wrong_type(rules, sources, path), 2, seed + 1000 + number)
    for number, name in enumerate(rules.mutations):
        if name == "wrong_type":
            continue
        strategy = mixed_batch(rules, sources, spare) if name == "mixed_batch" else MUTATIONS[name](rules, sources)
        mutants += draw_examples(strategy, EXAMPLES.get(name, DEFAULT_EXAMPLES), seed + number)
    unique: dict[bytes, Mutant] = {}
    for mutant in mutants:
        unique.setdefault(mutant.line, mutant)
    return list(unique.values())
