"""The canonical encoder: items to summary text.

Which record form an item gets is decided by the grammar (``CANON_PLAIN`` in
``grammar/summary.lark``); this module only formats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from . import grammar
from .errors import EncodeError

__all__ = ["EMPTY_TRANSCRIPT", "encode_records"]

EMPTY_TRANSCRIPT = "(no previous turns recorded)"

# json.dumps(ensure_ascii=False) leaves these raw, and str.splitlines() breaks
# at them. They can only occur inside JSON strings, where \uXXXX is valid.
_RAW_BREAK = re.compile("[\x85\u2028\u2029]")
_ESCAPE_RAW_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
# Keys sorted, so equal items give equal text; non-ASCII kept readable.
_to_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
_PLAIN_KEYS = frozenset({"role", "name", "content"})


def _plain_line(item: Mapping[str, Any]) -> str | None:
    """The plain ``role (name): content`` line for ``item``, if it is canonical."""
    if "role" not in item or "content" not in item or not item.keys() <= _PLAIN_KEYS:
        return None
    role, content = item["role"], item["content"]
    if not isinstance(role, str) or not isinstance(content, str):
        return None
    name = item.get("name")
    if name is None and "name" not in item:
        line = f"{role}: {content}"
    elif isinstance(name, str):
        line = f"{role} ({name}): {content}"
    else:
        return None
    # The line must match, and read back as these very fields: a role such as
    # "assistant (bot)" would otherwise read back as a role and a name.
    match = grammar.terminal("CANON_PLAIN").fullmatch(line)
    if match is None or match.group("role", "name", "content") != (role, name, content):
        return None
    return line


def _json_record(item: Mapping[str, Any], index: int) -> str:
    try:
        text: str = _to_json(item if isinstance(item, dict) else dict(item))
    except (TypeError, ValueError) as exc:
        raise EncodeError(f"item {index} is not JSON-compatible: {exc}") from exc
    return text.translate(_ESCAPE_RAW_BREAKS) if _RAW_BREAK.search(text) else text


def encode_records(items: Iterable[Mapping[str, Any]]) -> list[str]:
    """One ``N. ...`` line per item, numbered from 1."""
    lines = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, Mapping):
            raise EncodeError(f"item {number - 1} is a {type(item).__name__}, not a mapping")
        body = _plain_line(item)
        if body is None:
            body = _json_record(item, number - 1)
        lines.append(f"{number}. {body}")
    return lines
