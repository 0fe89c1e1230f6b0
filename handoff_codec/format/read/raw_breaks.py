"""What no record of the current format holds: a line break but its own "\\n", or NUL.

``grammar/summary.lark``'s records hold ``RECORD_CHAR`` only, so a reader
that splits lines with ``str.splitlines()`` (the Agents SDK's) sees the same
records, and a PostgreSQL TEXT column can store the text. A strict read finds
any other character with one scan of the body (:func:`first_raw_break`) and
refuses it at its place (:func:`refusal`). The lenient reading keeps such
characters as text: older writers wrote them raw.
"""

from __future__ import annotations

import functools
import re

from .. import grammar
from ..errors import DecodeError, DecodeReason

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["first_raw_break", "raw_break_finder", "refusal"]

# How a refused character is named in the message.
_NAMES = {"\r": "carriage return (\\r)", "\x0b": "vertical tab (\\v)", "\x0c": "form feed (\\f)",
          "\x1c": "file separator (U+001C)", "\x1d": "group separator (U+001D)",
          "\x1e": "record separator (U+001E)", "\x85": "next line (U+0085)",
          "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)",
          "\x00": "NUL (U+0000)"}


# Below this many characters one regular expression search is quicker; above it, one
# str.find per character (each a memchr-like scan) is, by far (about 50 us for 500 kB,
# where the search takes 4.5 ms).
_SHORT = 256


@functools.cache
def raw_break_finder() -> Callable[[str, int, int], int | None]:
    """``find(text, begin, stop)``: the offset of the first character in
    ``text[begin:stop]`` that no record holds (``RECORD_CHAR`` leaves out), but "\\n";
    None if there is none."""
    record_char = grammar.terminal("RECORD_CHAR").pattern
    chars = record_char[3:-1]
    if not (record_char.startswith("[^\n") and record_char.endswith("]")) \
            or any(char in "\\-]^" for char in chars):
        raise AssertionError(f"RECORD_CHAR {record_char!r} is not a class [^\\n...] of "
                             "characters")
    search = re.compile(f"[{chars}]").search

    def find(text: str, begin: int, stop: int) -> int | None:
        if stop - begin < _SHORT:
            found = search(text, begin, stop)
            return None if found is None else found.start()
        at = text.find
        hits = [pos for char in chars if (pos := at(char, begin, stop)) >= 0]
        return min(hits) if hits else None

    return find


def first_raw_break(text: str, begin: int, stop: int) -> int | None:
    """The offset of the first character in ``text[begin:stop]`` that no record holds."""
    return raw_break_finder()(text, begin, stop)


def refusal(text: str, pos: int) -> DecodeError:
    """The strict reader's DecodeError for the character at ``pos`` that no record holds."""
    char = text[pos]
    what = _NAMES.get(char, f"U+{ord(char):04X}")
    return DecodeError(f"raw {what} in a record: a record is one line without it, so a "
                       "writer puts such text in a JSON record, escaped", text, pos,
                       ("a record on one line, with no line break but its own and no NUL",),
                       DecodeReason.SYNTAX)
