"""The readings of a body as openai-agents 0.6 to 0.17.0 wrote it, the likeliest first.

That writer wrote each item as ``N. `` and its record, numbered 1, 2, 3, with
the content (and the name) raw: ``role: content``, ``role (name): content``,
the bare ``role`` or ``role (name)`` for empty content, and an item without a
role as ``type: {json}`` on one line (``item: {json}`` without a type). A line
of its text starts a record only if it starts with the number after the record
above; any other line is that record's content (or name). So a body holds a
few such readings, each a choice of the lines that start records (and, for a
record whose name holds ``): ``, of where the name ends).

:func:`raw_readings` finds the cheapest few, when a reading is flagged. A
reading's cost is how unlikely the text is under it: each line that could
start the next record but is read as content costs 1 (a user typed a line
that continues the numbering); a name that holds a line break costs 1; a name
read to another ``): `` than its first, or a line ``role (a): b)`` read as an
empty turn named ``a): b``, costs 1 each. The cheapest reading is the one a
reader that knows the writer's vocabulary gives (docs/spec.md, section 13);
the others are what the writer may have had when a user typed record-shaped
lines. A body of more than 2,000 lines is not searched; a name ends within
its record's first 4 lines, at one of its first three ``): ``. Only the records'
places are found here; their items are read when asked for (:func:`items`).
"""

from __future__ import annotations

import heapq
import re

from .json_record import whole_object
from .vocabulary import ITEM_TYPES, KNOWN_ROLES, message

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RawReading", "items", "raw_readings"]

Item = dict[str, "Any"]

# The roles the raw writer's callers gave (the Responses API's and Chat Completions').
_ROLES = frozenset(KNOWN_ROLES | {"tool"})
_WORDS = frozenset(ITEM_TYPES | {"item"})
_HEAD = re.compile(r"(0|[1-9][0-9]{0,8})\. ([A-Za-z_][A-Za-z0-9_]*)")
# A record's place: (first line, end line (exclusive), which of its readings).
Place = tuple[int, int, int]
# At most this many lines that start the next record are tried as the end of one
# record (the nearest), and at most this many partial readings are kept per line.
_NEAREST = 8
# A name ends within this many lines of its record, at one of its first this many '): '.
_NAME_LINES, _SPLITS = 4, 3
# Bodies of more lines are not read so (what the search holds grows with the lines).
_MAX_LINES = 2000


class RawReading:
    """One reading of the body: where each record is, and what it costs."""

    __slots__ = ("cost", "places")

    def __init__(self, cost: int, places: tuple[Place, ...]) -> None:
        self.cost, self.places = cost, places


def _heads(lines: list[str]) -> list[tuple[int, str, int]]:
    """Each line that may start a record of the writer: (number, word, end of the word),
    or (-1, "", 0) for any other."""
    found = []
    for line in lines:
        match = _HEAD.match(line)
        if match is None:
            found.append((-1, "", 0))
            continue
        word, end = match[2], match.end()
        rest = line[end:end + 2]
        if ((word in _ROLES and rest in ("", ": ", " ("))
                or (word in _WORDS and rest == ": " and line[end + 2:end + 3] == "{")):
            found.append((int(match[1]), word, end))
        else:
            found.append((-1, "", 0))
    return found


def _readings(lines: list[str], first: int, end: int, word: str, at: int,
              max_depth: int) -> list[int]:
    """The costs of the readings of the record on ``lines[first:end]`` (its word ``word``
    ends at ``at`` of the first line), the cheapest first; [] when the writer writes no
    such record."""
    head = lines[first]
    rest = head[at:]
    if word not in _ROLES:  # `type: {json}`, one line
        if end != first + 1:
            return []
        return [0] if whole_object(rest[2:], max_depth, constants=True) is not None \
            else []
    if not rest:  # the bare role: empty content
        return [0] if end == first + 1 else []
    if rest.startswith(": "):  # content; the writer writes none empty
        return [0] if len(rest) > 2 or end > first + 1 else []
    if not rest.startswith(" ("):
        return []
    return [cost for cost, _, _ in _names(lines, first, end, at)]


def _names(lines: list[str], first: int, end: int, at: int) -> list[tuple[int, int, bool]]:
    """Where the name of the record on ``lines[first:end]`` (after `role (`, which ends
    at ``at + 2`` of its first line) may end: (cost, the offset of its end in the text
    after `role (`, whether the record is an empty turn), the cheapest first. A name
    ends within the record's first ``_NAME_LINES`` lines, at one of its first
    ``_SPLITS`` '): ' that leave a name and content."""
    whole = end <= first + _NAME_LINES
    head = "\n".join(lines[first:end if whole else first + _NAME_LINES])[at + 2:]
    found: list[tuple[int, int, bool]] = []
    splits = 0
    pos = head.find("): ")
    while pos >= 0 and splits < _SPLITS:
        if pos and (pos + 3 < len(head) or not whole):  # (content after the head's lines)
            found.append((splits + ("\n" in head[:pos]), pos, False))
            splits += 1
        pos = head.find("): ", pos + 1)
    if whole and head.endswith(")") and len(head) > 1:
        found.append((max(1, splits) + ("\n" in head), len(head) - 1, True))
    found.sort(key=lambda reading: reading[0])
    return found


def raw_readings(text: str, begin: int, stop: int, count: int, max_depth: int,
                 ) -> list[RawReading]:
    """The ``count`` cheapest readings of ``text[begin:stop]`` (whole lines) as the raw
    writer wrote it, the cheapest first ([]: it wrote no such body, or the body is longer
    than ``_MAX_LINES``)."""
    if text.count("\n", begin, stop) > _MAX_LINES:
        return []
    body = text[begin:stop]
    if body.endswith("\n"):
        body = body[:-1]
    lines = body.split("\n")
    heads = _heads(lines)
    if heads[0][0] != 1:
        return []
    size = len(lines)
    # Where the lines that may start record n are (n: their number), in order.
    numbered: dict[int, list[int]] = {}
    for index, (number, _, _) in enumerate(heads):
        if number > 0:
            numbered.setdefault(number, []).append(index)
    # best[i]: the cheapest readings of lines[i:] with a record starting at line i, each
    # (cost, choice, end, rank: which of best[end] follows), at most ``count``; computed
    # from the last line up.
    best: dict[int, list[tuple[int, int, int, int]]] = {}
    for first in range(size - 1, -1, -1):
        number, word, at = heads[first]
        if number <= 0:
            continue
        nexts = [index for index in numbered.get(number + 1, ()) if index > first]
        found: list[tuple[int, int, int, int]] = []
        ends = [(index, skipped) for skipped, index in enumerate(nexts[:_NEAREST])]
        ends.append((size, len(nexts)))
        for end, skipped in ends:
            if end < size and end not in best:
                continue
            for choice, cost in enumerate(_readings(lines, first, end, word, at, max_depth)):
                if end == size:
                    found.append((skipped + cost, choice, end, 0))
                else:
                    found += [(skipped + cost + rest[0], choice, end, rank)
                              for rank, rest in enumerate(best[end])]
        if found:
            best[first] = heapq.nsmallest(count, found)
    readings = []
    for cost, choice, end, rank in best.get(0, ()):
        places = [(0, end, choice)]
        while end < size:
            _, choice, after, rank = best[end][rank]
            places.append((end, after, choice))
            end = after
        readings.append(RawReading(cost, tuple(places)))
    return readings


def items(text: str, begin: int, stop: int, reading: RawReading, max_depth: int,
          ) -> list[Item]:
    """The items of one reading of :func:`raw_readings`."""
    body = text[begin:stop]
    if body.endswith("\n"):
        body = body[:-1]
    lines = body.split("\n")
    heads = _heads(lines)
    found: list[Item] = []
    for first, end, choice in reading.places:
        _, word, at = heads[first]
        rest = lines[first][at:]
        if word not in _ROLES:
            value = whole_object(rest[2:], max_depth, constants=True)
            assert value is not None
            if word != "item":
                value["type"] = word
            found.append(value)
        elif not rest:
            found.append(message(word, ""))
        elif rest.startswith(": "):
            found.append(message(word, "\n".join([rest[2:], *lines[first + 1:end]])))
        else:
            _, pos, empty = _names(lines, first, end, at)[choice]
            record = "\n".join(lines[first:end])[at + 2:]
            found.append(message(word, "" if empty else record[pos + 3:], record[:pos]))
    return found
