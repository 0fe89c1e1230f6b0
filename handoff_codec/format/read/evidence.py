"""Writer evidence and numbering: which writers the lines allow, and which lines start records.

The one rule a grammar cannot state (docs/spec.md, "Numbering"):

1. The run: lines numbered n, n+1, n+2, ... from the body's first line (n is
   1 unless records before it are gone). Of several such runs, the one with
   the most lines shaped like records wins, then the shortest (a numbered
   line of prose stays content), then the one whose lines come first (a line
   that repeats the number of a record above is out of sequence). Lines
   inside a summary quoted in content (between its own start marker line and
   the end marker line that closes it) are content, never records. Every line of the run
   starts a record: a raw writer's content that continues the sequence
   cannot be told from records (inherently ambiguous, and stated so).
2. The evidence: the forms of the run's records (and any line that is not
   numbered) rule writers out (:mod:`.generations`).
3. Every other numbered line: a record of its own when every writer left
   escapes line breaks (each record is one line), noted ``renumbered``;
   otherwise content of the record above when that record can hold spilled
   content (a `role: content` record), noted ``ambiguous`` when it looks
   like a record (the as-numbered reading is then a candidate), and a record
   of its own after any other record (no writer spills there).

When every numbered line is in the run (the usual legacy text), nothing
depends on the evidence: the records are read first and the evidence taken
from them (:func:`sign` is the one definition of a record's signs).
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
    from collections.abc import Callable, Iterable, MutableSequence

    from .lines import Line

__all__ = ["Numbered", "Numbering", "every_line", "int_array", "numbering", "shaped", "sign",
           "typed_value"]

# A body of up to this many lines keeps the fields of each line (they are
# read once, by one findall); a longer one keeps only the offsets and numbers
# of its numbered lines (memory stays a small multiple of the text) and
# matches a line again when it is read.
_KEEP_FIELDS = 4096


def int_array(bound: int, values: Iterable[int] = ()) -> array[int]:
    """An array for ints from -1 to ``bound``: 4 bytes each when that is enough, else 8."""
    return array("i" if bound < 2**31 - 1 else "q", values)


@functools.cache
def _numbered_lines() -> re.Pattern[str]:
    """``RECORD_NUMBER`` of grammar/legacy.lark: where a numbered line starts, its number."""
    return re.compile(r"^([0-9]+)\.", re.MULTILINE)


@functools.cache
def _marker_lines(start: str, end: str) -> re.Pattern[str]:
    """A line that is the start or the end marker."""
    return re.compile(f"^(?:{re.escape(start)}|{re.escape(end)})$", re.MULTILINE)


class Numbered:
    """The numbered lines of the body ``text[begin:end]``: their offsets and numbers.

    ``tokens`` are the body's lines by offset (the Lark reference's); without
    them the fast tokenizer's pattern reads them. ``unnumbered`` counts the
    lines that are not numbered.
    """

    __slots__ = ("begin", "end", "fields", "line_at", "numbers", "starts", "text",
                 "unnumbered")

    starts: MutableSequence[int]
    numbers: MutableSequence[int]
    fields: list[Line] | None

    def __init__(self, text: str, begin: int, end: int,
                 tokens: dict[int, Line] | None = None) -> None:
        self.text, self.begin, self.end = text, begin, end
        self.line_at: Callable[[str, int], Line] = _lines.line_at
        lines = text.count("\n", begin, end)
        if tokens is not None:
            self.line_at = lambda _text, at: tokens[at]
            self._keep(list(tokens.values()), list(tokens))
        elif lines <= _KEEP_FIELDS:
            found: list[Line] = _lines.line_pattern().findall(text, begin, end)
            starts, find, pos = [], text.find, begin
            for _ in found:
                starts.append(pos)
                pos = find("\n", pos) + 1
            self._keep(found, starts)
        else:
            self.fields = None
            self.starts, self.numbers = int_array(end), array("q")
            start, number = self.starts.append, self.numbers.append
            for match in _numbered_lines().finditer(text, begin, end):
                start(match.start())
                number(_lines.number(match[1]))
            self.unnumbered = lines - len(self.starts)

    def _keep(self, found: list[Line], starts: list[int]) -> None:
        numbered = [index for index, line in enumerate(found) if line[0]]
        self.fields = [found[index] for index in numbered]
        self.starts = [starts[index] for index in numbered]
        self.numbers = [_lines.number(line[0]) for line in self.fields]
        self.unnumbered = len(found) - len(numbered)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> Line:
        """The fields of numbered line ``index``."""
        if self.fields is not None:
            return self.fields[index]
        return self.line_at(self.text, self.starts[index])

    def in_order(self) -> bool:
        """Whether the numbered lines are numbered 1, 2, 3, ... from the body's first line."""
        return bool(self.starts) and self.starts[0] == self.begin and all(
            map(int.__eq__, self.numbers, range(1, len(self.numbers) + 1)))

    def inside_quoted_summaries(self, start: str, end: str) -> bytearray:
        """1 for each numbered line between a quoted summary's own marker lines: a start
        marker line and the end marker line that closes it (one that none closes quotes
        no summary)."""
        inside = bytearray(len(self.starts))
        text = self.text
        if text.find(start, self.begin, self.end) < 0:
            return inside
        quoted: list[tuple[int, int]] = []  # the outermost closed pairs' offsets
        depth, opened = 0, 0
        for marker in _marker_lines(start, end).finditer(text, self.begin, self.end):
            if marker[0] == start:
                if not depth:
                    opened = marker.start()
                depth += 1
            elif depth:
                depth -= 1
                if not depth:
                    quoted.append((opened, marker.start()))
        index, count = 0, len(self.starts)
        for first, last in quoted:
            while index < count and self.starts[index] < first:
                index += 1
            while index < count and self.starts[index] < last:
                inside[index] = 1
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


def sign(line: Line, alone: bool, max_depth: int, value: object = None) -> int:
    """The :class:`Sign` flags of the record that starts with ``line``.

    ``alone`` when the record is that one line (the next line starts a record,
    or the body ends); ``value`` the record's JSON object, when it was read.
    """
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return Sign.EMPTY_TURN if alone and not line[2] else 0
    if kind == _lines.JSON:
        if value is None:
            value = whole_object(line[3], max_depth)
        if not isinstance(value, dict):
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
        if alone and (value is not None or typed_value(line, max_depth) is not None):
            return Sign.TYPED
    return 0


class Numbering:
    """Which numbered lines start records, and what the reading rests on.

    ``heads`` are indexes into the :class:`Numbered` lines; ``renumbered``
    the heads whose number does not follow (with the number expected);
    ``doubtful`` the lines read as content that would read as records
    alone (``ambiguous``); ``writers`` the writers the evidence leaves, or
    None when the numbering did not depend on them (the records then say).
    """

    __slots__ = ("doubtful", "expected", "heads", "inside", "renumbered", "writers")

    def __init__(self, heads: MutableSequence[int], writers: tuple[Generation, ...] | None,
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
    # The most record-shaped lines; of as many, the shortest run (a numbered line of prose
    # stays content), the earliest lines (kept above on ties).
    best = max(range(len(scores)), key=lambda offset: (scores[offset], -offset))
    run = int_array(count, [ends[best]])
    while parents[run[-1]] >= 0:
        run.append(parents[run[-1]])
    run.reverse()
    return run


def numbering(lines: Numbered, start: str, end: str, max_depth: int) -> Numbering:
    """The records of a body whose first line is numbered (rules 1 to 3)."""
    count = len(lines)
    inside = lines.inside_quoted_summaries(start, end)
    if lines.in_order() and not any(inside):
        return Numbering(range(count), None, inside)  # type: ignore[arg-type]
    run = _run(lines, inside)
    if len(run) == count - sum(inside):  # every numbered line is in the run
        return _renumbered(lines, Numbering(run, None, inside))
    # The evidence: the run's records, and whether any line is not numbered.
    signs = Sign.SPILLED if lines.unnumbered else 0
    is_head = bytearray(count)
    for head in run:
        is_head[head] = 1
    for position, head in enumerate(run):
        after = lines.text.find("\n", lines.starts[head]) + 1
        following = lines.starts[run[position + 1]] if position + 1 < len(run) else lines.end
        signs |= sign(lines.line(head), after == following, max_depth)
    writers = candidates(signs)
    if writers and all(writer.escapes_line_breaks for writer in writers):
        return every_line(lines, inside, writers)
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
        elif shaped(line) or _lines.kind(line) == _lines.PLAIN or _bare_role(lines, index):
            result.doubtful.append(index)
    return _renumbered(lines, result)


# ``N. tool``: how the raw writers wrote an empty Chat Completions-style tool message.
# ``tool`` is no role of the grammar's vocabulary (a bare known role is a BARE line, a
# record), so read as content such a line may hide a turn: it is doubtful.
_BARE_TOOL = re.compile(r"[0-9]+\. tool")


def _bare_role(lines: Numbered, index: int) -> bool:
    """Whether numbered line ``index`` is ``N. tool`` alone (see ``_BARE_TOOL``)."""
    start = lines.starts[index]
    stop = lines.text.find("\n", start, lines.end)
    return _BARE_TOOL.fullmatch(lines.text, start, lines.end if stop < 0 else stop) is not None


def every_line(lines: Numbered, inside: bytearray,
               writers: tuple[Generation, ...] | None) -> Numbering:
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
