"""Resource limits for reading (and writing) summaries.

A summary is text that a model wrote or a user influenced, so a reader must
bound what one summary can cost. Three limits, all fields of :class:`Codec`:

``max_bytes`` (default 32 MiB)
    The size of the summary text in UTF-8. Checked first, before any parsing.
    A summary is replayed to a model on every handoff, and today's largest
    context windows hold a few MB of text, so 32 MiB is far above any honest
    summary while keeping one hostile message from costing gigabytes.
``max_records`` (default 100,000)
    The number of record lines: body lines that start with ``N.``. Honest
    transcripts hold hundreds of turns; 100,000 also caps the items built.
``max_depth`` (default 200)
    How deeply the JSON of one record may nest, the record's own object being
    level 1. Responses-API items nest about 5 levels. 200 keeps far below
    Python's recursion limit, so ``json`` never raises ``RecursionError``.

The byte limit is checked on the whole text before it is parsed. The record
limit is too, except that the single-pass reader first reads up to
``max_records + 1`` records (never more), which spares the count on text it
reads whole; any other outcome is counted before it is reported. The depth
limit is checked on each JSON record before ``json.loads`` sees it, by a scan
that is cheap when a record holds few brackets (the usual case).
"""

from __future__ import annotations

import re

from .errors import DecodeError, DecodeReason
from .grammar import terminal

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_RECORDS",
    "check_records",
    "check_size",
    "depth_exceeded_at",
    "utf8_size",
]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_RECORDS = 100_000
DEFAULT_MAX_DEPTH = 200

_NUMBERED_LINE = terminal("RECORD_NUMBER", "legacy")  # where a numbered line starts
# A JSON string (possibly unterminated) or one bracket. Strings are skipped
# whole, so brackets inside them do not count.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def depth_exceeded_at(text: str, limit: int) -> int | None:
    """The offset of the bracket that nests ``text`` deeper than ``limit``, or None."""
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for match in _STRUCTURE.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif char in "]}":
            depth -= 1
    return None


def utf8_size(text: str) -> int:
    """The size of ``text`` in UTF-8 (lone surrogates count 3 bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _byte_offset_to_index(text: str, size: int) -> int:
    """The index of the character holding byte ``size`` of ``text`` in UTF-8."""
    head = text[: size + 1].encode("utf-8", "surrogatepass")[:size]
    return len(head.decode("utf-8", "ignore"))


def check_size(text: str, *, max_bytes: int) -> None:
    """Raise DecodeError if ``text`` is over ``max_bytes`` bytes of UTF-8."""
    # Every character is 1 to 4 bytes, so most texts need no encoding at all.
    if len(text) > max_bytes or (len(text) * 4 > max_bytes and utf8_size(text) > max_bytes):
        raise DecodeError(
            f"summary larger than max_bytes={max_bytes} bytes of UTF-8", text,
            _byte_offset_to_index(text, max_bytes), ("a smaller summary",), DecodeReason.LIMIT)


def check_records(text: str, *, max_records: int) -> None:
    """Raise DecodeError if ``text`` has more than ``max_records`` numbered lines."""
    # A body of at most max_records lines cannot hold more records.
    if text.count("\n") <= max_records + 2:
        return
    for count, match in enumerate(_NUMBERED_LINE.finditer(text), 1):
        if count > max_records:
            raise DecodeError(f"more than max_records={max_records} records", text,
                              match.start(), ("fewer records",), DecodeReason.LIMIT)
