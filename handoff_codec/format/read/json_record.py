"""JSON records: the C scanner's fast path, and the checked decode that says why.

:func:`whole_object` reads the usual record, an RFC 8259 object that reads
whole, with the json module's C scanner and none of its wrappers (the
reader's one pass inlines it);
:func:`json_object` reads any other or says, with a position, why it cannot.
"""

from __future__ import annotations

import json
import re

from .. import limits
from ..errors import DecodeReason, ReadFailure

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["json_object", "json_value", "strict_scanner", "whole_object"]

Item = dict[str, "Any"]


class _NonStandard(ValueError):
    """NaN, Infinity or -Infinity, which RFC 8259 JSON does not allow."""


def _refuse(name: str) -> Any:
    raise _NonStandard(name)


_STRICT_JSON = json.JSONDecoder(parse_constant=_refuse)
# The C scanner behind json.loads (not in the type stubs): (value, end) or StopIteration.
_scan_once: Callable[[str, int], tuple[Any, int]] = _STRICT_JSON.scan_once  # type: ignore[attr-defined]
# A JSON string (skipped whole), or a constant outside strings.
# The same scanner with NaN and Infinity, as json.loads reads them.
_scan_any: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_CONSTANT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(?P<constant>-?Infinity|NaN)', re.DOTALL)
_JSON_EXPECTED = ("a JSON object",)


def _too_deep(pos: int, max_depth: int) -> ReadFailure:
    return ReadFailure(f"JSON record nested too deeply: more than max_depth={max_depth} levels",
                       pos, _JSON_EXPECTED, DecodeReason.DEPTH)


def json_object(
    text: str, pos: int, max_depth: int, *, on_constant: Callable[[], object] | None = None
) -> Item:
    """Decode the JSON object ``text``, found at offset ``pos`` of the summary.

    NaN, Infinity and -Infinity are refused, unless ``on_constant`` is given:
    then they are read as floats and ``on_constant()`` is called once.
    Raises ReadFailure with an absolute position: reason ``depth`` past
    ``max_depth`` levels, ``json`` for anything that is not a JSON object.
    """
    deep = limits.depth_exceeded_at(text, max_depth)
    if deep is not None:
        raise _too_deep(pos + deep, max_depth)
    try:
        value = _STRICT_JSON.decode(text)
    except json.JSONDecodeError as exc:
        raise ReadFailure(f"invalid JSON record: {exc.msg}", pos + exc.pos, _JSON_EXPECTED,
                          DecodeReason.JSON) from None
    except _NonStandard:
        if on_constant is None:
            found = next(m for m in _CONSTANT.finditer(text) if m["constant"])
            raise ReadFailure(f"invalid JSON record: {found['constant']} is not JSON "
                              "(RFC 8259)", pos + found.start(), _JSON_EXPECTED,
                              DecodeReason.JSON) from None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:  # e.g. extra data after an object holding NaN
            raise ReadFailure(f"invalid JSON record: {exc.msg}", pos + exc.pos, _JSON_EXPECTED,
                              DecodeReason.JSON) from None
        on_constant()
    except RecursionError:  # a max_depth above what the json module can nest
        raise _too_deep(pos, max_depth) from None
    except ValueError as exc:  # an int over the digit limit
        raise ReadFailure(f"invalid JSON record: {exc}", pos, _JSON_EXPECTED,
                          DecodeReason.JSON) from None
    if type(value) is not dict:
        raise ReadFailure("a JSON record must be an object", pos, _JSON_EXPECTED,
                          DecodeReason.JSON)
    return value


def whole_object(source: str, max_depth: int, *, constants: bool = False) -> Item | None:
    """The usual JSON record: an object read whole by the C scanner, as
    :func:`json_object` would read it; None for anything else, which
    :func:`json_object` reads or says why not. JSON that reads whole takes two
    brackets a level, so a short or bracket-poor record cannot nest too deep.
    ``constants`` reads NaN and Infinity too, as ``json.loads`` does."""
    if len(source) <= 2 * max_depth + 1 or \
            source.count("{") + source.count("[") <= max_depth:
        try:
            value, stop = (_scan_any if constants else _scan_once)(source, 0)
        except (StopIteration, ValueError, RecursionError):
            return None
        if stop == len(source) and type(value) is dict:
            return value
    return None


def json_value(text: str) -> Any:
    """``json.loads(text)``, or None when that raises."""
    try:
        value, end = _scan_any(text, 0)  # the C scanner that json.loads calls, minus its wrappers
        if end == len(text):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    try:
        return json.loads(text)  # leading or trailing spaces, or the error
    except (ValueError, RecursionError):
        return None


def strict_scanner() -> Callable[[str, int], tuple[Any, int]]:
    """The json module's C scanner that :func:`whole_object` uses: ``(value, end)`` for
    the JSON value at an offset; StopIteration or ValueError (NaN and Infinity too)."""
    return _scan_once
