"""Compact JSON text as producers send it: no spaces, unicode as is."""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def json_object(fields: list[tuple[str, str]]) -> str:
    """A JSON object of already serialised values, in order."""
    return "{" + ",".join(f"{dumps(name)}:{value}" for name, value in fields) + "}"
