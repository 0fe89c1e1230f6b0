"""The canonical encoder: items to summary text.

Which record form an item gets is decided by the grammar (``CANON_PLAIN`` in
``grammar/summary.lark``); this module only formats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import _limits as limits
from . import _parsers as grammar
from ._errors import EncodeError

__all__ = ["EMPTY_TRANSCRIPT", "encode_records"]

EMPTY_TRANSCRIPT = "(no previous turns recorded)"

# json.dumps(ensure_ascii=False) leaves these raw, and str.splitlines() breaks
# at them. They can only occur inside JSON strings, where \uXXXX is valid.
_ESCAPE_RAW_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
# Keys sorted, so equal items give equal text; non-ASCII kept readable.
_to_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
_PLAIN_KEYS = frozenset({"role", "name", "content"})

Match = Callable[[str], "re.Match[str] | None"]


def _plain_line(item: Mapping[str, Any], canon: Match) -> str | None:
    """The plain ``role (name): content`` line for ``item``, if ``canon`` accepts it."""
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
    match = canon(line)
    if match is None or match.group("role", "name", "content") != (role, name, content):
        return None
    return line


def _json_record(item: Mapping[str, Any], index: int, max_depth: int) -> str:
    try:
        text: str = _to_json(item if type(item) is dict else dict(item))
    except (TypeError, ValueError) as exc:
        raise EncodeError(f"item {index} is not JSON-compatible: {exc}") from exc
    if limits.depth_exceeded_at(text, max_depth) is not None:
        raise EncodeError(f"item {index} nests deeper than max_depth={max_depth}")
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        return text.translate(_ESCAPE_RAW_BREAKS)
    return text


def encode_records(
    items: Iterable[Mapping[str, Any]], max_depth: int = limits.DEFAULT_MAX_DEPTH
) -> list[str]:
    """One ``N. ...`` line per item, numbered from 1.

    Raises EncodeError for an item that is not a JSON-compatible mapping or
    that nests deeper than ``max_depth``, which a reader would refuse.
    """
    canon = grammar.terminal("CANON_PLAIN").fullmatch
    lines = []
    for number, item in enumerate(items, 1):
        if type(item) is not dict and not isinstance(item, Mapping):
            raise EncodeError(f"item {number - 1} is a {type(item).__name__}, not a mapping")
        body = _plain_line(item, canon)
        if body is None:
            body = _json_record(item, number - 1, max_depth)
        lines.append(f"{number}. {body}")
    return lines
