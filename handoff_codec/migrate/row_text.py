"""A stored row's JSON text: the cheap test on its bytes, its parse, and the splice.

The per-row rule (``rule.RowRule``) decides what changes; this module says how.
:class:`Prefilter` tells, from a row's raw bytes, whether it can hold a summary
at all; :func:`parse_row` reads it; :func:`splice` writes a changed string back.

A changed row differs from the original only inside the ``content`` string of
each changed item: the new text is spliced into the row's own bytes, so
numbers (``1e400``, ``-0``, ``2E3``), duplicate keys, spacing and escapes
elsewhere in the row stay exactly as they were. With ``restore_empty``, an
item emptied of its placeholder differs only inside its ``content`` (or
``output``) string, or inside the ``text`` strings of its text parts.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..format.codec import Codec

__all__ = [
    "Prefilter",
    "RowError",
    "object_spans",
    "parse_row",
    "reads_as",
    "splice",
    "splice_field",
    "string_literal",
    "utf8_error",
]

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# Characters JSON may write as a two-character escape; any other character
# appears either as itself or inside a \uXXXX escape.
_SHORT_ESCAPED = frozenset('"\\/\b\f\n\r\t')


def _char_or_escape(char: str) -> bytes:
    """A bytes pattern for ``char`` in JSON text: as UTF-8, or as its \\u escape(s)."""
    units = char.encode("utf-16-be")
    escape = b"".join(b"\\\\u" + b"".join(b"[%s%s]" % (c.encode(), c.upper().encode())
                                             for c in units[i:i + 2].hex())
                      for i in range(0, len(units), 2))
    return b"(?:" + re.escape(char.encode("utf-8")) + b"|" + escape + b")"


class RowError(ValueError):
    """The row cannot be rewritten by splicing; it is reported and left alone."""


class Prefilter:
    """A cheap test on a row's raw bytes: can it hold a summary of this codec at all?

    A summary's content contains the start marker. In the row's JSON text the
    marker appears as itself, or with some of its characters written as
    ``\\uXXXX`` (as ``json.dumps`` does for non-ASCII, and other writers for
    ``<``): a row holding the marker in neither spelling cannot hold a summary.

    With ``restore_empty`` a row may also need a placeholder emptied, and a
    placeholder can be as short as ``"."``: every row holding a ``"content"``
    or ``"output"`` key (or a ``\\u`` escape, which may spell one) is decoded.
    """

    __slots__ = ("_escaped", "_needle", "restore_empty")

    def __init__(self, codec: Codec, *, restore_empty: bool = False) -> None:
        usable = not _SHORT_ESCAPED.intersection(codec.start)
        self._needle = codec.start.encode("utf-8") if usable else None
        # The marker with any of its characters written as a \uXXXX escape
        # (surrogate pairs for characters past U+FFFF).
        self._escaped = re.compile(b"".join(_char_or_escape(char) for char in codec.start))
        self.restore_empty = restore_empty

    @property
    def plain_needle(self) -> bytes | None:
        """The marker's bytes when a row holding neither them nor ``\\u`` (a UTF-8 row)
        can be passed over unread; None when every row must be tested (``restore_empty``)."""
        return None if self.restore_empty else self._needle

    def may_hold_summary(self, raw: bytes) -> bool:
        needle = self._needle
        return needle is None or needle in raw or (
            b"\\u" in raw and self._escaped.search(raw) is not None)

    def may_hold_placeholder(self, raw: bytes) -> bool:
        return self.restore_empty and (b'"content"' in raw or b'"output"' in raw
                                       or b"\\u" in raw)


def parse_row(raw: bytes) -> tuple[Any, str | None, str | None]:
    """(value, text, error) for a row's bytes: its JSON value, or why there is none."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, None, utf8_error(exc)
    try:
        return json.loads(text), text, None
    except json.JSONDecodeError as exc:
        return None, text, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return None, text, "invalid JSON: nested too deeply"
    except ValueError as exc:  # e.g. an integer over sys.get_int_max_str_digits() digits
        return None, text, f"cannot be read as JSON: {exc}"


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    assert match is not None
    return match.end()


def _expect(text: str, pos: int, char: str) -> int:
    if text[pos:pos + 1] != char:
        raise RowError(f"unexpected JSON shape at offset {pos}")
    return _skip_space(text, pos + 1)


def _skip_value(text: str, pos: int) -> int:
    if text[pos:pos + 1] == '"':
        return int(scanstring(text, pos + 1, True)[1])
    return int(_DECODER.raw_decode(text, pos)[1])


def _content_span(text: str, pos: int, field: str = "content"
                  ) -> tuple[tuple[int, int] | None, int]:
    """The span of the ``field`` value (``content``) in the object at ``pos``, and its end."""
    pos = _expect(text, pos, "{")
    span: tuple[int, int] | None = None
    seen = False
    if text[pos:pos + 1] == "}":
        return None, pos + 1
    while True:
        if text[pos:pos + 1] != '"':
            raise RowError(f"unexpected JSON shape at offset {pos}")
        key, pos = scanstring(text, pos + 1, True)
        pos = _expect(text, _skip_space(text, pos), ":")
        end = _skip_value(text, pos)
        if key == field:
            if seen:
                raise RowError(f"the item has more than one {field!r} key")
            seen, span = True, (pos, end)
        pos = _skip_space(text, end)
        if text[pos:pos + 1] == "}":
            return span, pos + 1
        pos = _expect(text, pos, ",")


def _spans(text: str, is_list: bool, fields: list[str]) -> list[tuple[int, int] | None]:
    """The span of ``fields[i]`` in item ``i`` (the value, or each element of the list)."""
    pos = _skip_space(text, 0)
    if not is_list:
        return [_content_span(text, pos, fields[0])[0]]
    spans: list[tuple[int, int] | None] = []
    pos = _expect(text, pos, "[")
    while text[pos:pos + 1] not in ("]", ""):
        if text[pos:pos + 1] == "{":
            field = fields[len(spans)] if len(spans) < len(fields) else "content"
            span, pos = _content_span(text, pos, field)
        else:
            span, pos = None, _skip_value(text, pos)
        spans.append(span)
        pos = _skip_space(text, pos)
        if text[pos:pos + 1] == ",":
            pos = _skip_space(text, pos + 1)
    return spans


def string_literal(content: str, old_literal: str) -> str:
    """``content`` as a JSON string, escaping non-ASCII only if the old literal did."""
    if old_literal.isascii():
        return encode_basestring_ascii(content)  # json.dumps(content)
    new = encode_basestring(content)  # json.dumps(content, ensure_ascii=False)
    try:
        new.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only an escape can hold it
        return json.dumps(content)
    return new


def _replace(spans: list[tuple[int, int] | None], text: str, new: list[str | None]) -> str:
    """``text`` with the literal at ``spans[i]`` replaced by ``new[i]`` (None: kept)."""
    pieces: list[str] = []
    last = 0
    for span, literal in zip(spans, new, strict=True):
        if literal is None:
            continue
        if span is None:
            raise RowError("a changed value could not be located in the row's text")
        pieces += [text[last:span[0]], literal]
        last = span[1]
    pieces.append(text[last:])
    return "".join(pieces)


def _value(new: Any, old_literal: str) -> str:
    """The JSON text of a changed field: a string, or text parts whose ``text`` changed."""
    if isinstance(new, str):
        return string_literal(new, old_literal)
    if not isinstance(new, list) or not old_literal.startswith("["):
        raise RowError("the changed value could not be located in the row's text")
    spans = _spans(old_literal, True, ["text"] * len(new))
    if len(spans) != len(new):
        raise RowError("the text parts could not be located in the row's text")
    texts: list[str | None] = []
    for part, span in zip(new, spans, strict=True):
        old = "" if span is None else old_literal[span[0]:span[1]]
        texts.append(None if span is not None and json.loads(old) == part["text"]
                     else string_literal(part["text"], old))
    return _replace(spans, old_literal, texts)


def splice(text: str, is_list: bool, fields: list[str], new: list[Any]) -> str:
    """``text`` with the value of ``fields[i]`` in item ``i`` replaced by ``new[i]``
    (None: kept): a string, or a list of text parts whose ``text`` changed."""
    spans = _spans(text, is_list, fields)
    if len(spans) != len(new):
        raise RowError("the row's items could not be located in its text")
    literals: list[str | None] = []
    for value, span in zip(new, spans, strict=True):
        if value is None:
            literals.append(None)
        elif span is None:
            raise RowError("the summary's content could not be located in the row's text")
        else:
            literals.append(_value(value, text[span[0]:span[1]]))
    return _replace(spans, text, literals)


def splice_field(text: str, field: str, new: str) -> str:
    """``text`` (a JSON object) with the string value of its top-level ``field`` replaced."""
    span, _ = _content_span(text, _skip_space(text, 0), field)
    if span is None:
        raise RowError(f"the row has no {field!r} key")
    return _replace([span], text, [string_literal(new, text[span[0]:span[1]])])


def object_spans(text: str) -> tuple[dict[str, Any], tuple[int, int]] | None:
    """A JSON object's value and its ``content`` value's span, in one pass; or None.

    None for anything but a well-formed object whose ``content`` key, if any,
    appears once: the caller then reads ``text`` the general way, which gives
    such a row its value or its error. Keys and values are read with the json
    module's own scanner, so the value equals ``json.loads(text)``. ``(0, 0)``:
    no ``content`` key.
    """
    match = _SPACE.match
    pos = match(text, 0).end()  # type: ignore[union-attr]
    if text[pos:pos + 1] != "{":
        return None
    value: dict[str, Any] = {}
    span = (0, 0)
    pos = match(text, pos + 1).end()  # type: ignore[union-attr]
    try:
        if text[pos:pos + 1] == "}":
            pos += 1
        else:
            while True:
                if text[pos:pos + 1] != '"':
                    return None
                key, pos = scanstring(text, pos + 1, True)
                pos = match(text, pos).end()  # type: ignore[union-attr]
                if text[pos:pos + 1] != ":":
                    return None
                start = pos = match(text, pos + 1).end()  # type: ignore[union-attr]
                if text[pos:pos + 1] == '"':
                    item, pos = scanstring(text, pos + 1, True)
                else:
                    item, pos = _DECODER.raw_decode(text, pos)
                if key == "content":
                    if span != (0, 0):
                        return None
                    span = (start, pos)
                value[key] = item
                pos = match(text, pos).end()  # type: ignore[union-attr]
                char = text[pos:pos + 1]
                pos += 1
                if char == "}":
                    break
                if char != ",":
                    return None
                pos = match(text, pos).end()  # type: ignore[union-attr]
    except (ValueError, RecursionError):
        return None
    if match(text, pos).end() != len(text):  # type: ignore[union-attr]
        return None
    return value, span


def utf8_error(exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 (invalid byte at offset {exc.start})"


def reads_as(literal: str, content: str) -> bool:
    """Whether ``literal`` is one JSON string, the whole of it, that reads as ``content``."""
    if literal[:1] != '"':
        return False
    try:
        value, end = scanstring(literal, 1, True)
    except ValueError:
        return False
    return bool(end == len(literal) and value == content)
