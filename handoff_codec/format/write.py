"""The canonical encoder: items to summary text.

Which record form an item gets is decided by the grammar (``KNOWN_ROLE`` and
``CANON_PLAIN`` in ``grammar/summary.lark``); this module only formats.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

from . import grammar as _grammar
from . import limits
from .errors import EncodeError
from .read.authority import RANKS, lowered, may_rise
from .read.vocabulary import KNOWN_ROLES

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["SURROGATE", "encode_records", "plain_line"]

# json.dumps(ensure_ascii=False) leaves these raw: three characters that
# str.splitlines() breaks at, and surrogates, which UTF-8 cannot encode. They
# can only occur inside JSON strings, where \uXXXX is valid and reads back as
# the same code point, except a high surrogate followed by a low one, which
# JSON reads as one character past U+FFFF.
_RAW_IN_JSON = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
# A surrogate: a str holds one, UTF-8 cannot (markers, the CLI's output).
SURROGATE = re.compile("[\ud800-\udfff]")
# A key as json writes an int, float, bool or None key: a number, true, false
# or null. Checked by its characters, a quick test that a few str keys pass too.
_LITERAL_KEY = re.compile(r'"[-0-9tfn][-0-9.e+rualsn]*": ')
# RFC 8259 JSON (no NaN or Infinity), keys sorted so equal items give equal
# text, non-ASCII kept readable.
_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False)


def _json_writer() -> Callable[[Any, int], Iterable[str]]:
    """The chunks of ``_JSON.encode(item)``, as ``writer(item, 0)``, for the items of one summary.

    ``JSONEncoder.encode`` builds the json module's C encoder for every item;
    this builds it once, with its own marks for circular references, as
    ``JSONEncoder.iterencode`` does. Without the C encoder, ``_JSON.encode``.
    """
    if c_make_encoder is None:  # pragma: no cover - CPython always has it
        return lambda item, _level: (_JSON.encode(item),)
    encode: Callable[[Any, int], Iterable[str]] = c_make_encoder(
        {}, _JSON.default, encode_basestring, _JSON.indent, _JSON.key_separator,
        _JSON.item_separator, _JSON.sort_keys, _JSON.skipkeys, _JSON.allow_nan)
    return encode


def _plain_content(content: str) -> bool:
    """Content that ``CANON_CONTENT?`` matches without running the pattern (else see there).

    Empty, or printable (``str.isprintable()``: no line break, no whitespace
    but " ") and neither starting nor ending with " " nor starting with "[".
    """
    return not content or (content.isprintable() and content[:1] not in " ["
                           and content[-1:] != " ")


def plain_line(item: Mapping[str, Any]) -> str | None:
    """The plain ``role: content`` / ``role (name): content`` line for ``item``, if any.

    Only an item of exactly these string fields, with a ``KNOWN_ROLE``, whose
    line matches ``CANON_PLAIN`` is written plain. Most content is printable
    (``str.isprintable()``: no line break, no whitespace but " "), does not
    start or end with " " and does not start with "[": such content matches the grammar's
    ``CANON_CONTENT`` without running the pattern. Every other line is
    matched against ``CANON_PLAIN`` itself.
    """
    size = len(item)
    if size == 2:
        name = None
    elif size == 3 and "name" in item:
        name = item["name"]
        if not isinstance(name, str):
            return None
    else:
        return None
    if "role" not in item or "content" not in item:
        return None
    role, content = item["role"], item["content"]
    if not isinstance(role, str) or not isinstance(content, str) or role not in KNOWN_ROLES:
        return None
    if "\n" in content:  # CANON_PLAIN holds no line break
        return None
    if name is None:
        line = f"{role}: {content}"
        if _plain_content(content):
            return line
    else:
        if "): " in content:  # a reader could end the name there too: two readings
            return None
        line = f"{role} ({name}): {content}"
        if _grammar.terminal("LEGACY_BARE_NAMED", "legacy").fullmatch(f"1. {line}"):
            return None  # `user (a): b)`: also an empty turn named "a): b", as 0.6 to 0.19 wrote
    if _grammar.terminal("CANON_PLAIN").fullmatch(line) is None:
        return None
    # The line must also read back as these very fields: `developer (a): b): c`
    # matches CANON_PLAIN, but as name "a" and content "b): c".
    read = _grammar.terminal("PLAIN_RECORD").fullmatch(f"1. {line}\n")
    if read is None or read.group("role", "name", "content") != (role, name, content):
        return None
    return line


def _non_string_key(value: Any) -> tuple[Any, str] | None:
    """The first key in ``value`` that is not a str, and where: ``'["meta"][0]'``.

    Objects are searched depth first, each container once (so a cycle ends).
    None when every key is a str.
    """
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            entries = list(node.items())
            for key, _ in entries:
                if not isinstance(key, str):
                    return key, path
            children = [(child, f"{path}[{json.dumps(key)}]")
                        for key, child in entries]
        elif isinstance(node, list | tuple):
            children = [(child, f"{path}[{position}]") for position, child in enumerate(node)]
        else:
            continue
        stack.extend(reversed([entry for entry in children
                               if isinstance(entry[0], dict | list | tuple)]))
    return None


def _key_error(index: int, item: Any) -> EncodeError | None:
    """The EncodeError for a key of ``item`` that is not a str, if it has one."""
    found = _non_string_key(item)
    if found is None:
        return None
    key, path = found
    where = f" at {path}" if path else ""
    return EncodeError(f"item {index}: key {key!r} ({type(key).__name__}){where} is not a "
                       "string; JSON object keys are strings")


def _json_record(item: Mapping[str, Any], index: int, max_depth: int,
                 to_json: Callable[[Any, int], Iterable[str]]) -> str:
    value = item if type(item) is dict else dict(item)
    try:
        text = "".join(to_json(value, 0))
    except (TypeError, ValueError) as exc:
        raise (_key_error(index, value)
               or EncodeError(f"item {index} is not JSON-compatible: {exc}")) from exc
    # JSON that nests deeper than max_depth holds two brackets a level past it.
    if len(text) > 2 * max_depth + 1 and limits.depth_exceeded_at(text, max_depth) is not None:
        raise EncodeError(f"item {index} nests deeper than max_depth={max_depth}")
    # json writes an int, float, bool or None key as a string; such a key reads
    # as a JSON literal. Only then (or for a str key that looks the same) are
    # the keys checked one by one.
    if _LITERAL_KEY.search(text) is not None:
        error = _key_error(index, value)
        if error is not None:
            raise error
    if text.isascii() or ("\x85" not in text and "\u2028" not in text
                          and "\u2029" not in text and _utf8_encodable(text)):
        return text
    pair = _SURROGATE_PAIR.search(text)
    if pair is not None:
        high, low = (ord(char) for char in pair.group())
        joined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        raise EncodeError(
            f"item {index} holds U+{high:04X} U+{low:04X}, a surrogate pair as two code "
            f"points, which JSON can only write as the one character U+{joined:04X}")
    return _RAW_IN_JSON.sub(_escaped, text)


def _utf8_encodable(text: str) -> bool:
    """Whether ``text`` holds no surrogate (faster than a search for one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def not_a_list(items: object) -> str:
    """What to say when a list of items was expected and ``items`` came instead."""
    if isinstance(items, Mapping):
        return ("expected a list of items, got one item (a mapping): wrap it in a list, "
                "[item]")
    return (f"expected a list of items (mappings such as {{\"role\": \"user\", "
            f"\"content\": \"hi\"}}), got a {type(items).__name__}")


def encode_records(
    items: Iterable[Mapping[str, Any]], max_depth: int = limits.DEFAULT_MAX_DEPTH
) -> list[str]:
    """One ``N. ...`` line per item, numbered from 1.

    Raises EncodeError for an item that is not a JSON-compatible mapping, that
    has a key that is not a str (JSON would turn it into one), that holds a
    surrogate pair as two code points (JSON would join them), or that nests
    deeper than ``max_depth``, which a reader would refuse. A lone surrogate
    is written as a ``\\uXXXX`` escape, so the text is always valid UTF-8.
    """
    if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
        raise EncodeError(not_a_list(items))
    lines: list[str] = []
    append, to_json = lines.append, _json_writer()
    written: list[Mapping[str, Any]] = []  # the items, for the authority rule below
    keep = written.append
    plain_above = False  # whether a record before is written plain
    risers: list[int] = []  # records after a plain one that may gain authority unproven
    for number, item in enumerate(items, 1):
        keep(item)
        if type(item) is dict and len(item) == 2:
            # The usual item, {"role", "content"} with a known role: plain_line's
            # first tests, inline.
            role, content = item.get("role"), item.get("content")
            if type(role) is str and type(content) is str and role in KNOWN_ROLES:
                if plain_above and role in RANKS:
                    risers.append(number - 1)
                # _plain_content, inline (this runs for nearly every item)
                if not content or (content.isprintable() and content[0] not in " ["
                                   and content[-1] != " "):
                    append(f"{number}. {role}: {content}")
                    plain_above = True
                    continue
                if "\n" in content:  # plain_line would say None
                    append(f"{number}. {_json_record(item, number - 1, max_depth, to_json)}")
                    continue
        if type(item) is not dict and not isinstance(item, Mapping):
            raise EncodeError(f"item {number - 1} is a {type(item).__name__}, not a mapping "
                              '(an item is a dict such as {"role": "user", "content": "hi"})')
        if plain_above and may_rise(item):
            risers.append(number - 1)
        body = plain_line(item)
        plain_above = plain_above or body is not None
        if body is None:
            body = _json_record(item, number - 1, max_depth, to_json)
        append(f"{number}. {body}")
    # A record that a reader would lower (read as text of a plain record before it: a
    # system turn after a user turn, a tool call no output answers) is read as a record
    # when the first record is JSON with Python's separators, which no writer of raw
    # content wrote (.read.authority, docs/spec.md "Authority").
    if risers and lowered(written, risers, spilling={
            index for index, line in enumerate(lines)
            if not line.startswith(f"{index + 1}. {{")}):  # (a plain record may spill)
        for index, item in enumerate(written):  # up to the first JSON with a separator
            if not lines[index].startswith(f"{index + 1}. {{"):
                lines[index] = f"{index + 1}. {_json_record(item, index, max_depth, to_json)}"
            if item:
                break
    return lines
