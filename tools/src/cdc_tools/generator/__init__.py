"""A CDC test-data generator: one logical change stream, encoded in every wire format the
project reads, with the row changes and schema changes each format must give.

    logical_stream(seed, statements)   the stream (model.Statement objects)
    formats.FORMATS[name].encode(st)   a statement as a format's landed lines
    expected.expected_row_changes(st)  what the facts must hold for it
    writer.generate(out, ...)          all of it to files; `cdc-generate` is its CLI
"""

from cdc_tools.generator.stream import logical_stream

__all__ = ["logical_stream"]
