"""What no record of the current format holds: a line break but its own "\\n", or NUL.

``grammar/summary.lark``'s records hold ``RECORD_CHAR`` only, so a reader
that splits lines with ``str.splitlines()`` (the Agents SDK's) sees the same
records, and a PostgreSQL TEXT column can store the text. A strict read finds
any other character with one search over the body (:func:`first_raw_break`)
and refuses it at its place (:func:`refusal`). The lenient reading keeps such
characters as text: older writers wrote them raw.
"""

from __future__ import annotations

import functools
import re

from .. import grammar
from ..errors import DecodeError, DecodeReason

__all__ = ["first_raw_break", "refusal"]

# How a refused character is named in the message.
_NAMES = {"\r": "carriage return (\\r)", "\x0b": "vertical tab (\\v)", "\x0c": "form feed (\\f)",
          "\x1c": "file separator (U+001C)", "\x1d": "group separator (U+001D)",
          "\x1e": "record separator (U+001E)", "\x85": "next line (U+0085)",
          "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)",
          "\x00": "NUL (U+0000)"}


@functools.cache
def _pattern() -> re.Pattern[str]:
    """The characters ``RECORD_CHAR`` (``[^\\n...]``) leaves out, but "\\n", as one class."""
    record_char = grammar.terminal("RECORD_CHAR").pattern
    if not (record_char.startswith("[^\n") and record_char.endswith("]")):
        raise AssertionError(f"RECORD_CHAR {record_char!r} is not a class [^\\n...]")
    return re.compile("[" + record_char[3:])


def first_raw_break(text: str, begin: int, stop: int) -> int | None:
    """The offset of the first character in ``text[begin:stop]`` that no record holds."""
    found = _pattern().search(text, begin, stop)
    return None if found is None else found.start()


def refusal(text: str, pos: int) -> DecodeError:
    """The strict reader's DecodeError for the character at ``pos`` that no record holds."""
    char = text[pos]
    what = _NAMES.get(char, f"U+{ord(char):04X}")
    return DecodeError(f"raw {what} in a record: a record is one line without it, so a "
                       "writer puts such text in a JSON record, escaped", text, pos,
                       ("a record on one line, with no line break but its own and no NUL",),
                       DecodeReason.SYNTAX)
