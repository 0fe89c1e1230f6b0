"""Writer evidence and numbering: which writers the lines allow, and which lines start records.

The one rule a grammar cannot state (docs/spec.md, "Numbering"):

1. The run: lines numbered n, n+1, n+2, ... from the body's first line (n is
   1 unless records before it are gone). Of several such runs, the one with
   the most lines shaped like records wins, then the one whose lines come
   first: a line that repeats the number of a record above is out of sequence.
   Lines inside a summary quoted in content (between its own start and end
   marker lines) are content, never records. Every line of the run starts a
   record: a raw writer's content that continues the sequence cannot be told
   from records (inherently ambiguous, and stated so).
2. The evidence: the forms of the run's records (and any line that is not
   numbered) rule writers out (:mod:`.generations`).
3. Every other numbered line: a record of its own when every writer left
   escapes line breaks (each record is one line), noted ``renumbered``;
   otherwise content of the record above when that record can hold spilled
   content (a `role: content` record), noted ``ambiguous`` when it looks
   like a record (the as-numbered reading is then a candidate), and a record
   of its own after any other record (no writer spills there).

Memory stays a small multiple of the input: only the numbered lines are
kept, as offsets and numbers in arrays of ints.
"""

from __future__ import annotations

import functools
import re
from array import array

from . import lines as _lines
from .generations import Generation, Sign, candidates
from .json_record import whole_object
from .vocabulary import ITEM_TYPES, KNOWN_ROLES, WORD

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from .lines import Line

__all__ = ["Numbered", "Numbering", "every_line", "int_array", "numbering", "shaped", "sign",
           "typed_value"]


def int_array(bound: int, values: Iterable[int] = ()) -> array[int]:
    """An array for ints from -1 to ``bound``: 4 bytes each when that is enough, else 8."""
    return array("i" if bound < 2**31 - 1 else "q", values)


@functools.cache
def _after_line_break() -> re.Pattern[str]:
    """A line break, then a record number: its matches start every numbered line but the
    first (``RECORD_NUMBER`` of grammar/legacy.lark)."""
    return re.compile(r"\n([0-9]+)\.")


_FIRST = re.compile(r"([0-9]+)\.")


@functools.cache
def _marker_lines(start: str, end: str) -> re.Pattern[str]:
    """A line that is the start or the end marker."""
    return re.compile(f"^(?:{re.escape(start)}|{re.escape(end)})$", re.MULTILINE)


class Numbered:
    """The numbered lines of the body ``text[begin:end]``: offsets and numbers, as int arrays.

    ``line_at(start)`` gives the :data:`~.lines.Line` that starts at an offset
    (the fast tokenizer's match, or the Lark reference's token).
    """

    __slots__ = ("begin", "end", "line_at", "numbers", "starts", "text")

    def __init__(self, text: str, begin: int, end: int,
                 line_at: Callable[[str, int], Line] = _lines.line_at) -> None:
        self.text, self.begin, self.end, self.line_at = text, begin, end, line_at
        self.starts = int_array(end)
        self.numbers = array("q")
        start, number = self.starts.append, self.numbers.append
        first = _FIRST.match(text, begin, end)
        if first is not None:
            start(begin)
            number(_lines.number(first[1]))
        for match in _after_line_break().finditer(text, begin, end):
            start(match.start() + 1)
            number(_lines.number(match[1]))

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> Line:
        return self.line_at(self.text, self.starts[index])

    def unnumbered(self) -> bool:
        """Whether a body line is not numbered: content that a raw writer spilled."""
        return self.text.count("\n", self.begin, self.end) != len(self.starts)

    def inside_quoted_summaries(self, start: str, end: str) -> bytearray:
        """1 for each numbered line between a quoted summary's own marker lines."""
        inside = bytearray(len(self.starts))
        text = self.text
        if text.find(start, self.begin, self.end) < 0:
            return inside
        depth, index, count = 0, 0, len(self.starts)
        for marker in _marker_lines(start, end).finditer(text, self.begin, self.end):
            while index < count and self.starts[index] < marker.start():
                inside[index] = depth > 0
                index += 1
            depth += (marker[0] == start) - (marker[0] == end and depth > 0)
        while index < count:
            inside[index] = depth > 0
            index += 1
        return inside


def shaped(line: Line) -> bool:
    """Whether a numbered line looks like the start of a record: JSON, a known role
    (bare, or followed by ":" or a name), or a `word: ` head."""
    kind = _lines.kind(line)
    if kind in (_lines.KNOWN, _lines.JSON, _lines.BARE):
        return True
    if kind == _lines.PLAIN:
        role = line[4]
        return role in KNOWN_ROLES or WORD.fullmatch(role) is not None
    return False


def typed_value(line: Line, max_depth: int) -> dict[str, object] | None:
    """The JSON object of a `type: {json}` record line (``ITEM_TYPES`` word, no name), else None."""
    if line[4] not in ITEM_TYPES or line[5] or line[6][:1] != "{":
        return None
    return whole_object(line[6], max_depth)


def sign(line: Line, alone: bool, max_depth: int) -> int:
    """The :class:`Sign` flags of the record that starts with ``line``; ``alone`` when the
    next line starts a record too (the record is that one line)."""
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return Sign.EMPTY_TURN if alone and not line[2] else 0
    if kind == _lines.JSON:
        value = whole_object(line[3], max_depth)
        if value is None:
            return 0
        content = value.get("content")
        if "role" in value and isinstance(content, str) and ("\n" in content or "\r" in content):
            return Sign.JSON | Sign.ESCAPED_BREAK
        return Sign.JSON
    if kind == _lines.BARE:
        return Sign.BARE_ROLE
    if kind == _lines.PLAIN:
        if line[5] and line[4] in KNOWN_ROLES:
            return Sign.NAMED
        if alone and typed_value(line, max_depth) is not None:
            return Sign.TYPED
    return 0


class Numbering:
    """Which numbered lines start records, and what the reading rests on.

    ``heads`` are indexes into the :class:`Numbered` lines; ``renumbered``
    the heads whose number does not follow (with the number expected);
    ``doubtful`` the lines read as content that would read as records
    alone (``ambiguous``); ``writers`` the writers the evidence leaves.
    """

    __slots__ = ("doubtful", "expected", "heads", "inside", "renumbered", "writers")

    def __init__(self, heads: array[int], writers: tuple[Generation, ...],
                 inside: bytearray) -> None:
        self.heads, self.writers, self.inside = heads, writers, inside
        self.renumbered = int_array(len(heads))
        self.expected = array("q")
        self.doubtful = int_array(len(heads))


def _run(lines: Numbered, inside: bytearray) -> array[int]:
    """The best run: indexes of lines numbered n, n+1, ... from the first line (rule 1).

    The best run ending on each number is kept in arrays indexed by the
    number less n: a run reaches number k only through k - 1.
    """
    count = len(lines)
    first = lines.numbers[0]
    scores, ends = int_array(count), int_array(count)  # of the best run ending on each number
    parents = int_array(count, [-1]) * count
    for position in range(count):
        if inside[position]:
            continue
        offset = lines.numbers[position] - first
        if position == 0:
            score, parent = 0, -1
        elif 1 <= offset <= len(scores):
            score, parent = scores[offset - 1], ends[offset - 1]
        else:
            continue
        score += shaped(lines.line(position))
        if offset >= len(scores):
            scores.append(score)
            ends.append(position)
        elif score > scores[offset]:
            scores[offset], ends[offset] = score, position
        else:
            continue
        parents[position] = parent
    run = int_array(count, [ends[-1]])
    while parents[run[-1]] >= 0:
        run.append(parents[run[-1]])
    run.reverse()
    return run


def numbering(lines: Numbered, start: str, end: str, max_depth: int) -> Numbering:
    """The records of a body whose first line is numbered (rules 1 to 3)."""
    count = len(lines)
    inside = lines.inside_quoted_summaries(start, end)
    numbers = lines.numbers
    in_order = not any(inside) and numbers[0] == 1 and all(
        numbers[index] == index + 1 for index in range(count))
    run = int_array(count, range(count)) if in_order else _run(lines, inside)
    outside = count - sum(inside)
    # The evidence: the run's records, and whether any line is not numbered.
    signs = Sign.SPILLED if lines.unnumbered() else 0
    is_head = bytearray(count)
    for head in run:
        is_head[head] = 1
    for position, head in enumerate(run):
        nxt = run[position + 1] if position + 1 < len(run) else -1
        after = lines.text.find("\n", lines.starts[head]) + 1
        alone = (after == lines.end) if nxt < 0 else (after == lines.starts[nxt])
        signs |= sign(lines.line(head), alone, max_depth)
    writers = candidates(signs)
    if len(run) == outside:  # every numbered line is in the run: nothing to decide
        result = Numbering(run, writers, inside)
    elif writers and all(writer.escapes_line_breaks for writer in writers):
        return every_line(lines, inside, writers)
    else:
        heads = int_array(count)
        result = Numbering(heads, writers, inside)
        spills = False  # whether the record above can hold content that spilled
        for index in range(count):
            if inside[index]:
                continue
            line = lines.line(index)
            if is_head[index] or not spills:
                heads.append(index)
                kind = _lines.kind(line)
                spills = kind == _lines.KNOWN or (kind == _lines.PLAIN and typed_value(
                    line, max_depth) is None)
            elif shaped(line) or _lines.kind(line) == _lines.PLAIN:
                result.doubtful.append(index)
    return _renumbered(lines, result)


def every_line(lines: Numbered, inside: bytearray,
               writers: tuple[Generation, ...]) -> Numbering:
    """Every numbered line (but those inside quoted summaries) a record: the reading
    of a writer that escapes line breaks, and the as-numbered candidate."""
    count = len(lines)
    return _renumbered(lines, Numbering(
        int_array(count, (i for i in range(count) if not inside[i])), writers, inside))


def _renumbered(lines: Numbered, result: Numbering) -> Numbering:
    """``result`` with each head whose number does not follow the one above noted."""
    numbers, expected = lines.numbers, 1
    for head in result.heads:
        if numbers[head] != expected:
            result.renumbered.append(head)
            result.expected.append(expected)
        expected = numbers[head] + 1
    return result
