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
from them (:func:`form_of` is the one definition of a record's forms).
"""

from __future__ import annotations

import bisect
import functools
import re
from array import array

from .. import grammar
from ..limits import depth_exceeded_at
from . import lines as _lines
from .authority import RANKS, RISING, Why
from .generations import GENERATIONS, Form, Generation, candidates, raw_possible, writes_of
from .json_record import json_value, whole_object
from .lines import (
    BARE_NAME,
    BARE_ROLE,
    JSON_OBJECT,
    KNOWN_CONTENT,
    KNOWN_ROLE,
    NUMBER,
    NUMBERED_REST,
    PLAIN_CONTENT,
    PLAIN_NAME,
    PLAIN_ROLE,
)
from .vocabulary import ITEM_TYPES, KNOWN_ROLES

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, MutableSequence, Sequence

    from .lines import Line

__all__ = [
    "FORGED",
    "MAIN",
    "MESSAGE_ROLES",
    "UNTYPED",
    "Numbered",
    "Numbering",
    "Way",
    "bare_named",
    "bare_only",
    "every_line",
    "form_of",
    "in_vocabulary",
    "int_array",
    "json_forms",
    "may_rise",
    "named_bare",
    "numbering",
    "one_line",
    "opens",
    "opens_name",
    "shaped",
    "spaced",
    "spills",
    "spills_at",
    "typed_value",
    "typed_word",
    "with_heads",
]

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
    return grammar.terminal("RECORD_NUMBER", "legacy")


@functools.cache
def _mark_pattern() -> re.Pattern[str]:
    """Numbered lines that end with ": "."""
    return re.compile(r"^[0-9]+\.[^\n]*: $", re.MULTILINE)


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

    __slots__ = ("begin", "closing", "end", "fields", "line_at", "marks", "numbers", "starts",
                 "text", "unnumbered")

    starts: MutableSequence[int]
    numbers: MutableSequence[int]
    fields: list[Line] | None

    def __init__(self, text: str, begin: int, end: int,
                 tokens: dict[int, Line] | None = None) -> None:
        self.text, self.begin, self.end = text, begin, end
        self.marks: tuple[frozenset[int], frozenset[int]] | None = None
        self.closing = -2  # (closes_after: not found yet)
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
        numbered = [index for index, line in enumerate(found) if line[NUMBER]]
        self.fields = [found[index] for index in numbered]
        self.starts = [starts[index] for index in numbered]
        self.numbers = [_lines.number(line[NUMBER]) for line in self.fields]
        self.unnumbered = len(found) - len(numbered)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> Line:
        """The fields of numbered line ``index``."""
        if self.fields is not None:
            return self.fields[index]
        return self.line_at(self.text, self.starts[index])

    def marked(self) -> tuple[frozenset[int], frozenset[int]]:
        """The numbered lines (indexes) that end with ": " (`N. role: ` may open content
        that starts with a line break), and those that end with ")" after a "): " (`N.
        role (a): b)` may be an empty turn named `a): b`): found once, by pattern."""
        if self.marks is None:
            find, begin, end = self.text.find, self.begin, self.end
            self.marks = (  # (most bodies hold neither: a find says so at once)
                self._matching(_mark_pattern()) if find(": \n", begin, end) >= 0
                else frozenset(), self._named())
        return self.marks

    def closes_after(self, index: int) -> bool:
        """Whether a line after numbered line ``index`` may end a name that goes on below
        that line (a name written verbatim holds any text): a line that ends with ")" or
        holds "): ". The last such line is found once, from the end."""
        if self.closing == -2:
            text, begin, at = self.text, self.begin, self.end
            self.closing = -1
            while True:
                at = text.rfind(")", begin, at)
                if at < 0:
                    break
                first = text.rfind("\n", begin, at) + 1
                stop = text.find("\n", at)
                if text.startswith(": ", at + 1) or not text[at + 1:stop].strip(" \t"):
                    self.closing = first
                    break
                at = first
        return self.closing > self.starts[index]

    def _named(self) -> frozenset[int]:
        """The numbered lines that end with ")" after a "): " (each "): " found)."""
        text, starts, end = self.text, self.starts, self.end
        found: list[int] = []
        at = text.find("): ", self.begin, end)
        while at >= 0:
            stop = text.find("\n", at, end)
            first = text.rfind("\n", 0, at) + 1
            if text[first:stop].rstrip(" \t")[-1:] == ")":
                index = bisect.bisect_left(starts, first)
                if index < len(starts) and starts[index] == first:
                    found.append(index)
            at = text.find("): ", stop, end)
        return frozenset(found)

    def _matching(self, pattern: re.Pattern[str]) -> frozenset[int]:
        starts, found = self.starts, []
        for match in pattern.finditer(self.text, self.begin, self.end):
            index = bisect.bisect_left(starts, match.start())
            if index < len(starts) and starts[index] == match.start():
                found.append(index)
        return frozenset(found)

    def in_order(self) -> bool:
        """Whether the numbered lines are numbered 1, 2, 3, ... from the body's first line."""
        return bool(self.starts) and self.starts[0] == self.begin and all(
            map(int.__eq__, self.numbers, range(1, len(self.numbers) + 1)))

    def inside_quoted_summaries(self, start: str, end: str,
                                preambles: tuple[str, ...] | None) -> bytearray:
        """1 for each numbered line between a quoted summary's own marker lines: a start
        marker line and the end marker line that closes it (one that none closes quotes
        no summary). The line before a quoted summary's start marker line ends with one
        of ``preambles`` (None: any line, the loose reading a candidate offers)."""
        inside = bytearray(len(self.starts))
        text = self.text
        if text.find(start, self.begin, self.end) < 0:
            return inside
        quoted: list[tuple[int, int]] = []  # the outermost closed pairs' offsets
        depth, opened = 0, 0
        for marker in _marker_lines(start, end).finditer(text, self.begin, self.end):
            if marker[0] == start:
                if not depth and preambles is not None:
                    before = text.rfind("\n", 0, marker.start() - 1) + 1
                    if marker.start() <= self.begin or not text.endswith(
                            preambles, before, marker.start() - 1):
                        continue  # no preamble: no evidence of a quoted summary
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


# The roles every writer writes a message with: a line with another role is a
# record only where each writer left escapes line breaks (docs/spec.md, "Numbering").
MESSAGE_ROLES = KNOWN_ROLES | {"tool"}
# An item without a role or type, as openai-agents 0.6 to 0.17.0 wrote it.
UNTYPED = "item"
def bare_named(text: str, start: int, stop: int) -> re.Match[str] | None:
    """``text[start:stop]`` (one line) as ``LEGACY_BARE_NAMED``, an empty turn whose name
    may hold any text, else None."""
    return _bare_named().fullmatch(text, start, stop)


@functools.cache
def _bare_named() -> re.Pattern[str]:
    return grammar.terminal("LEGACY_BARE_NAMED", "legacy")


def typed_word(word: str, writes: int) -> bool:
    """Whether ``word: {json}`` is a typed record's head for writers of the forms ``writes``."""
    return bool(writes & Form.TYPED) and (word in ITEM_TYPES or word == UNTYPED)


def in_vocabulary(line: Line, writes: int, lines: Numbered | None = None,
                  index: int = -1) -> bool:
    """Whether a writer of the forms ``writes`` writes ``line`` as the head of a record:
    a message of a role it writes (``MESSAGE_ROLES``, named or bare), a typed record of
    an item type, a JSON record. ``2. Speed: fast`` or ``2. critic: x`` is none.

    A name left open on its line (`2. system (note: obey`) is a name only if a later
    line may close it (``lines``' numbered line ``index``: :meth:`Numbered.closes_after`;
    without them, it may); else the role would be one no writer writes."""
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return True
    if kind == _lines.JSON:  # (openai-agents-js wrote compact JSON: no `{"key": `)
        return bool(writes & Form.JSON) and (
            bool(writes & Form.SPACED_JSON) or _SPACED.match(line[JSON_OBJECT]) is None)
    if kind == _lines.BARE:
        return bool(writes & Form.BARE_ROLE)
    if kind == _lines.PLAIN:
        role = line[PLAIN_ROLE]
        if role in MESSAGE_ROLES:
            return True
        if not line[PLAIN_NAME] and line[PLAIN_CONTENT][:1] == "{" and typed_word(role, writes):
            return True
        # a known role whose name holds ":" or "(" (`user (ops:bob)`, `user (a (b)): x`)
        head, _, _ = role.partition(" (")
        return head in MESSAGE_ROLES and role != head and (
            ")" in role or bool(line[PLAIN_NAME]) or ")" in line[PLAIN_CONTENT]
            or _closes(lines, index))
    if kind == _lines.NUMBERED:  # `N. tool`, or `N. role (name)` with a name of any text
        rest = line[NUMBERED_REST]
        head, paren, _ = rest[2:].partition(" (")
        return rest[:2] == ". " and head.rstrip(" \t") in MESSAGE_ROLES and bool(
            writes & Form.BARE_ROLE) and (not paren or ")" in rest or _closes(lines, index))
    return False


def _closes(lines: Numbered | None, index: int) -> bool:
    """Whether a name left open on numbered line ``index`` may close on a later line."""
    return lines is None or lines.closes_after(index)


def may_rise(line: Line) -> bool:
    """Whether the record ``line`` starts may be one :mod:`.authority` lowers: a system or
    developer turn, a tool message, a tool call or output, or a JSON record."""
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return line[KNOWN_ROLE] in RANKS
    if kind == _lines.PLAIN:  # a typed record's object may hold any role
        return line[PLAIN_ROLE].partition(" (")[0] in RISING or line[PLAIN_CONTENT][:1] == "{"
    if kind == _lines.BARE:
        return line[BARE_ROLE] in RANKS
    if kind == _lines.NUMBERED:
        return line[NUMBERED_REST][2:].partition(" ")[0] in RISING
    return kind == _lines.JSON


def shaped(line: Line) -> bool:
    """Whether a numbered line looks like the start of a record to some writer."""
    return in_vocabulary(line, Form.ALL)


def typed_value(line: Line, max_depth: int) -> dict[str, object] | None:
    """The JSON object of a `type: {json}` record line (``ITEM_TYPES`` word or ``item``, no
    name), else None. NaN and Infinity are read (json.dumps writes them by default)."""
    if line[PLAIN_CONTENT][:1] != "{" or line[PLAIN_NAME] or not typed_word(
            line[PLAIN_ROLE], Form.TYPED):
        return None
    return whole_object(line[PLAIN_CONTENT], max_depth, constants=True)


_SPACED = re.compile(r'\{"(?:[^"\\\n]|\\.)*": ')


def spaced(source: str) -> bool:
    """Whether a JSON record's object ``source`` is written with Python's separators (its
    first member `{"key": `): no writer of raw content wrote it so."""
    return _SPACED.match(source) is not None


def form_of(line: Line, alone: bool, max_depth: int, value: object = None) -> int:
    """The :class:`Form` flags of the record that starts with ``line``.

    ``alone`` when the record is that one line (the next line starts a record,
    or the body ends); ``value`` the record's JSON object, when it was read.
    """
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return Form.EMPTY_TURN if alone and not line[KNOWN_CONTENT] else 0
    if kind == _lines.JSON:
        if value is None:
            value = whole_object(line[JSON_OBJECT], max_depth)
            if value is None and depth_exceeded_at(line[JSON_OBJECT], max_depth) is None:
                value = json_value(line[JSON_OBJECT])  # whole_object's quick bound said no
        if not isinstance(value, dict):
            return 0
        return json_forms(value, line[JSON_OBJECT])
    if kind == _lines.BARE:
        return Form.BARE_ROLE
    if kind == _lines.PLAIN:
        if line[PLAIN_NAME] and line[PLAIN_ROLE] in KNOWN_ROLES:
            return Form.NAMED
        if alone and (value is not None or typed_value(line, max_depth) is not None):
            return Form.TYPED
    return 0


def json_forms(value: dict[str, object], source: str) -> int:
    """The forms of a JSON record: its object ``value`` and its text ``source``."""
    found = Form.JSON | (Form.SPACED_JSON if _SPACED.match(source) else 0)
    content = value.get("content")
    if "role" in value and isinstance(content, str) and ("\n" in content or "\r" in content):
        found |= Form.ESCAPED_BREAK
    return found


def spills(line: Line, max_depth: int) -> bool:
    """Whether the record that starts with ``line`` can hold content a raw writer spilled
    over the lines below it: a `role: content` message (its name may go on below: a
    writer wrote names verbatim), not a JSON, bare or typed record."""
    kind = _lines.kind(line)
    return kind == _lines.KNOWN or (kind == _lines.PLAIN and typed_value(
        line, max_depth) is None and not bare_only(line)) or (
        kind == _lines.NUMBERED and _named_on(line))


def named_bare(line: Line) -> bool:
    """Whether ``line`` is `N. role (name)` with a name, a role every writer writes and no
    ":" after the name: an empty turn whose name, written verbatim, may go on below (a
    ``BARE_LINE`` with a name, :func:`bare_only`, or a ``NUMBERED_LINE`` whose name holds
    "(" or ")")."""
    kind = _lines.kind(line)
    if kind == _lines.BARE:
        return bool(line[BARE_NAME])
    if kind == _lines.PLAIN:
        return bare_only(line)
    if kind == _lines.NUMBERED:
        rest = line[NUMBERED_REST]
        role, paren, _ = rest[2:].partition(" (")
        return rest[:2] == ". " and bool(paren) and role in MESSAGE_ROLES \
            and rest.rstrip(" \t")[-1:] == ")"
    return False


def opens_name(line: Line) -> bool:
    """Whether ``line`` opens a name of a role every writer writes and does not close it
    (`N. user (a`, `N. user (a: b`): a name written verbatim that may go on below."""
    kind = _lines.kind(line)
    if kind == _lines.NUMBERED:
        return _named_on(line)
    if kind != _lines.PLAIN:
        return False
    role = line[PLAIN_ROLE]
    head, paren, _ = role.partition(" (")
    return bool(paren) and head in MESSAGE_ROLES and ")" not in role \
        and not line[PLAIN_NAME] and ")" not in line[PLAIN_CONTENT]


def spills_at(lines: Numbered, index: int, line: Line, max_depth: int) -> bool:
    """:func:`spills`, and a record `N. role (name)` (:func:`named_bare`) when a line
    after it may end its name (docs/spec.md, "Numbering")."""
    return spills(line, max_depth) or (named_bare(line) and lines.closes_after(index))


def bare_only(line: Line) -> bool:
    """Whether a ``PLAIN_LINE`` is only an empty turn whose name holds ":" (`N. user
    (team: x)`, a bare role: ``LEGACY_BARE_NAMED``), not a `role: content` message of a
    role the writers write (its role would be `user (team`)."""
    role, content = line[PLAIN_ROLE], line[PLAIN_CONTENT].rstrip(" \t")
    head, paren, _ = role.partition(" (")
    return bool(paren) and head in MESSAGE_ROLES and not line[PLAIN_NAME] \
        and role[-1:] != ")" and content[-1:] == ")" and "):" not in content


def _named_on(line: Line) -> bool:
    """Whether a numbered line with no ":" opens a name of a role every writer writes
    (`N. user (a` of a name that holds a line break)."""
    role, paren, name = line[NUMBERED_REST][2:].partition(" (")
    return line[NUMBERED_REST][:2] == ". " and bool(paren) and role in MESSAGE_ROLES \
        and ")" not in name


class Numbering:
    """Which numbered lines start records, and what the reading rests on.

    ``heads`` are indexes into the :class:`Numbered` lines; ``renumbered``
    the heads whose number does not follow (with the number expected);
    ``doubtful`` the lines read as content that would read as records
    alone (``ambiguous``); ``guarded`` the heads that follow a record a raw
    writer's content could have spilled from (read as records, they must not
    gain authority: :mod:`.authority`); ``lowered`` the lines read as content
    for that reason, with why; ``writers`` the writers the evidence leaves.
    ``opened`` are the numbered lines right below a head `N. role: ` (the
    first line of content that starts with a line break, to a raw writer:
    content where only raw writers are left); ``bare_named`` the heads
    `N. role (a): b)` that are also an empty turn named `a): b`.
    """

    __slots__ = (
        "bare_named",
        "doubtful",
        "expected",
        "forms",
        "guarded",
        "heads",
        "inside",
        "lowered",
        "opened",
        "quoted",
        "renumbered",
        "writers",
    )

    def __init__(self, heads: MutableSequence[int], writers: tuple[Generation, ...] | None,
                 inside: bytearray) -> None:
        self.heads, self.writers, self.inside = heads, writers, inside
        self.renumbered = int_array(len(heads))
        self.expected = array("q")
        self.doubtful = int_array(len(heads))
        self.guarded = int_array(len(heads))
        self.lowered: dict[int, int] = {}
        self.forms = 0  # the evidence's forms
        self.quoted = -1  # where a record is that a quoted summary without preamble would hold
        self.opened = int_array(len(heads))
        self.bare_named = int_array(len(heads))


def _run(lines: Numbered, inside: bytearray, lowered: dict[int, int] | None = None,
         latest: bool = False, writes: int = Form.ALL) -> array[int]:
    """The best run: indexes of lines numbered n, n+1, ... from the first line (rule 1).

    The best run ending on each number is kept in arrays indexed by the
    number less n: a run reaches number k only through k - 1. A ``lowered``
    line counts against the run that holds it. Of lines numbered alike, the
    earliest, or with ``latest`` the last (a raw writer's content comes before
    its next record). A line counts for it when it is a record's head to some
    writer, or to one of the forms ``writes``.
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
        score += in_vocabulary(lines.line(position), writes, lines, position) - (
            2 if lowered and position in lowered else 0)
        if offset >= len(scores):
            scores.append(score)
            ends.append(position)
        elif score > scores[offset] or (latest and score == scores[offset]):
            scores[offset], ends[offset] = score, position
        else:
            continue
        parents[position] = parent
    # The most record-shaped lines; of as many, the shortest run (a numbered line of prose
    # stays content), the earliest lines (or the latest: kept above on ties).
    best = max(range(len(scores)), key=lambda offset: (scores[offset], -offset))
    run = int_array(count, [ends[best]])
    while parents[run[-1]] >= 0:
        run.append(parents[run[-1]])
    run.reverse()
    return run


class Way:
    """How a reading numbers the lines (the main reading: :data:`MAIN`).

    ``raw``: as a writer of raw content wrote the text (the writers left that
    do, else 0.6 to 0.17.0), whose content comes before its next record (of
    lines numbered alike, the last; with ``earliest``, the first); ``bare``: the
    heads `N. role (a): b)` (indexes of numbered lines) that are an empty turn
    named `a): b`, from which no content spills.
    """

    __slots__ = ("bare", "earliest", "raw")

    def __init__(self, *, raw: bool = False, bare: Collection[int] = (),
                 earliest: bool = False) -> None:
        self.raw, self.bare, self.earliest = raw, bare, earliest


MAIN = Way()


def numbering(lines: Numbered, start: str, end: str, max_depth: int,
              preambles: tuple[str, ...] | None, lowered: dict[int, int] | None = None,
              way: Way = MAIN) -> Numbering:
    """The records of a body whose first line is numbered (rules 1 to 3); ``lowered``
    lines (index -> why, :mod:`.authority`) are content of the record above; ``way``
    how the doubts are read.

    A summary quoted in content is known by the preamble line before its start marker
    line (``preambles``; None: any line). Lines between marker lines without one are
    content too, unless that would swallow a record: then the records are read, and
    ``quoted`` says where the doubt is.
    """
    if preambles is None:
        return _numbering(lines, lines.inside_quoted_summaries(start, end, None), max_depth,
                          lowered, way)
    inside = lines.inside_quoted_summaries(start, end, preambles)
    loose = lines.inside_quoted_summaries(start, end, None) if lines.text.find(
        start, lines.begin, lines.end) >= 0 else inside
    if loose == inside:
        return _numbering(lines, inside, max_depth, lowered, way)
    result = _numbering(lines, inside, max_depth, lowered, way)
    # (a line lowered is a record too, that authority keeps from gaining it)
    swallowed = [head for head in (*result.heads, *result.lowered)
                 if loose[head] and not inside[head]]
    if not swallowed:
        return _numbering(lines, loose, max_depth, lowered, way)
    result.quoted = lines.starts[swallowed[0]]
    return result


# The forms that rule out every writer that wrote content raw (alone or together): they
# count only from a line that is a record whatever the writer (raw content could forge
# them): the first line, or one after a record no content spills from. `N. role: ` never
# counts: a raw writer wrote it for content that starts with a line break.
_AGAINST_RAW = Form.EMPTY_TURN | Form.ESCAPED_BREAK | Form.SPACED_JSON | Form.JSON | Form.NAMED


def _numbering(lines: Numbered, inside: bytearray, max_depth: int,
               lowered: dict[int, int] | None, way: Way) -> Numbering:
    run: Sequence[int]
    latest = way.raw and not way.earliest
    if lowered or latest:
        run = _run(lines, inside, lowered, latest)
    else:
        run = range(len(lines)) if lines.in_order() and not any(inside) \
            else _run(lines, inside)
    forms, against = _evidence(lines, run, max_depth, lowered)
    writers = candidates(against)
    if way.raw:
        writers = tuple(writer for writer in writers or GENERATIONS
                        if not writer.escapes_line_breaks) or GENERATIONS[:1]
    if not raw_possible(writers):
        result = every_line(lines, inside, candidates(forms))
        result.forms = forms
        _note_bare_named(lines, result, writes_of(writers))
        return result
    writes = writes_of(writers)
    if not any(writer.escapes_line_breaks for writer in writers):  # proven raw
        if not isinstance(run, range) and forms & ~writes & (
                Form.JSON | Form.SPACED_JSON | Form.TYPED):  # a line of the run none writes
            run = _run(lines, inside, lowered, latest, writes)
        run = _without_opened(lines, inside, run, lowered, latest, writes)
    mask = inside
    for _ in range(_AGAIN):  # (reading as a raw writer wrote: without the lines dropped)
        result = Numbering(int_array(len(lines)), writers, inside)
        result.forms = forms
        result, dropped = _heads(lines, result, run, max_depth, lowered, way)
        if not dropped:
            break
        mask = _masked(mask, dropped)
        run = _run(lines, mask, lowered, latest, writes)
    return result


def _masked(inside: bytearray, lines: Iterable[int]) -> bytearray:
    """``inside`` with ``lines`` masked too (left out of the run)."""
    masked = bytearray(inside)
    for index in lines:
        masked[index] = 1
    return masked


# Why a record is read as content: a line below it is (after the reasons of authority.Why).
FORGED = len(Why.WORDS)

# How many times the run is found again without the lines right below `N. role: `.
_AGAIN = 4


def opens(lines: Numbered, index: int) -> bool:
    """Whether numbered line ``index`` is `N. role: ` or `N. role (name): `, nothing after
    the colon: a raw writer wrote it for content that starts with a line break."""
    if index not in lines.marked()[0]:
        return False
    text, start = lines.text, lines.starts[index]
    end = text.find("\n", start)
    line = lines.line(index)
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return not line[KNOWN_CONTENT]
    return kind == _lines.PLAIN and bare_named(text, start, end - 2) is not None


def _without_opened(lines: Numbered, inside: bytearray, run: Sequence[int],
                    lowered: dict[int, int] | None, latest: bool,
                    writes: int) -> Sequence[int]:
    """The run, where only raw writers are left, without the lines right below a record
    `N. role: ` (content: see :func:`opens`), numbered again without them."""
    opening = lines.marked()[0]
    if not opening:
        return run
    for _ in range(_AGAIN):
        found = [head + 1 for head in run if head in opening and head + 1 < len(lines)
                 and _alone(lines, head) and opens(lines, head)]
        if not found:
            return run
        inside = _masked(inside, found)
        run = _run(lines, inside, lowered, latest, writes)
    return run


def _evidence(lines: Numbered, run: Sequence[int], max_depth: int,
              lowered: dict[int, int] | None) -> tuple[int, int]:
    """The forms of the run's records (and of any line that is not numbered), and those of
    them that may rule raw writers out (see _AGAINST_RAW)."""
    text = lines.text
    forms = Form.SPILLED if lines.unnumbered else 0
    against = forms
    certain = True
    for position, head in enumerate(run):
        if lowered and head in lowered:  # content: evidence of nothing
            certain = False
            continue
        after = text.find("\n", lines.starts[head]) + 1
        following = lines.starts[run[position + 1]] if position + 1 < len(run) else lines.end
        line = lines.line(head)
        found = form_of(line, after == following, max_depth)
        forms |= found
        against |= found & ~(Form.EMPTY_TURN if certain else _AGAINST_RAW)
        certain = certain and after == following and not spills_at(lines, head, line,
                                                                     max_depth)
    return forms, against


def _heads(lines: Numbered, result: Numbering, run: Sequence[int], max_depth: int,
           lowered: dict[int, int] | None, way: Way) -> tuple[Numbering, list[int]]:
    """``result`` with the lines that start records under the raw writers it leaves (rule
    3), and (reading as a raw writer wrote, ``way.raw``) the lines of the run that cannot
    be records so."""
    walk = _Heads(lines, result, run, max_depth, lowered, way)
    if walk.strict or lowered:
        for index in range(len(lines)):
            if not result.inside[index]:
                walk.line(index)
    else:
        _usual_heads(walk, lines, result, max_depth)
    walk.counted.sort()
    return _renumbered(lines, result, walk.counted), walk.dropped


def _usual_heads(walk: _Heads, lines: Numbered, result: Numbering, max_depth: int) -> None:
    """:meth:`_Heads.line` for each line, its usual case here (for speed: no line lowered,
    not read strictly as a raw writer wrote; a line below `N. role: ` or one that may have
    two readings of its name goes to ``walk``)."""
    line_of, inside, is_head, writes = lines.line, result.inside, walk.is_head, walk.writes
    heads, guarded, forged = result.heads.append, result.guarded.append, walk.forged
    doubtful = result.doubtful.append
    opening, bare = lines.marked()
    marked = opening | bare if bare else opening
    spilling = exposed = False
    opened = -1
    for index in range(len(lines)):
        if inside[index]:
            continue
        if index == opened or index in marked:
            walk.spilling, walk.exposed, walk.opened = spilling, exposed, opened
            walk.line(index)
            spilling, exposed, opened = walk.spilling, walk.exposed, walk.opened
            continue
        line = line_of(index)
        if spilling:
            if not is_head[index]:  # content of the record above
                if in_vocabulary(line, writes, lines, index):
                    doubtful(index)
                continue
            if (not in_vocabulary(line, writes, lines, index) or one_line(line, writes)) \
                    and not walk.below(index, line):
                continue
        if exposed and may_rise(line):
            guarded(index)  # (see _Heads.head)
        heads(index)
        spilling = spills_at(lines, index, line, max_depth)
        if spilling:
            exposed = True
            if forged:
                forged.clear()
        elif exposed:
            forged.append(index)


class _Heads:
    """Rule 3, line by line: each line below a record content may spill from is a record
    only if it is in the writers' vocabulary and in the run; right below `N. role: `,
    never where only raw writers are left. Reading as a raw writer wrote (``strict``),
    every record follows the one above in number: a line of the run out of sequence is
    content, and so are the one-line records above a line that does not follow them."""

    __slots__ = ("counted", "dropped", "expected", "exposed", "forged", "is_head", "lines",
                 "lowered", "max_depth", "opened", "proven", "result", "spilling", "strict",
                 "way", "writes")

    def __init__(self, lines: Numbered, result: Numbering, run: Sequence[int],
                 max_depth: int, lowered: dict[int, int] | None, way: Way) -> None:
        writers = result.writers or ()
        self.lines, self.result, self.max_depth, self.way = lines, result, max_depth, way
        self.lowered, self.strict = lowered, way.raw
        self.writes = writes_of(writers)
        self.proven = not any(writer.escapes_line_breaks for writer in writers)
        self.is_head = bytearray(len(lines))
        for head in run:
            self.is_head[head] = 1
        self.counted: list[int] = []  # content in sequence: the next record follows it
        self.dropped: list[int] = []  # (strict) lines of the run that are content
        self.spilling = False  # whether the record above can hold content that spilled
        self.exposed = False  # whether a record content may have spilled from came before
        self.opened = -1  # the line right below a head `N. role: `
        self.forged: list[int] = []  # the heads since the last that spills, after one did
        self.expected = lines.numbers[0] if len(lines) else 0  # (strict) the next number

    def line(self, index: int) -> None:
        """Read numbered line ``index``: a head, or content of the record above."""
        result, lowered = self.result, self.lowered
        if index == self.opened:
            result.opened.append(index)
            if self.proven:
                return  # content that starts with a line break, quietly
        if lowered and index in lowered:
            self.lower(index, lowered[index])
            return
        line = self.lines.line(index)
        if self.strict and not self.spilling and self.forged \
                and self.lines.numbers[index] != self.expected:
            self.dropped += self.forged  # a line below one-line records does not follow them
            self.spilling = _forged(result, self.forged, self.is_head, self.counted)
        if self.spilling and not self.below(index, line):
            return
        self.head(index, line)

    def lower(self, index: int, why: int) -> None:
        """A line lowered (:mod:`.authority`): content of the record above, and so are the
        records since the last that spills."""
        result = self.result
        if not self.spilling and self.forged:
            self.spilling = _forged(result, self.forged, self.is_head, self.counted)
        result.doubtful.append(index)
        result.lowered[index] = why
        if self.is_head[index]:
            self.counted.append(index)
        if _bare_reading(self.lines, index, self.writes):
            result.bare_named.append(index)

    def below(self, index: int, line: Line) -> bool:
        """Whether a line below a record content may spill from starts a record."""
        result, writes, proven = self.result, self.writes, self.proven
        if not self.is_head[index] or (
                self.strict and self.lines.numbers[index] != self.expected):
            if self.is_head[index]:
                self.dropped.append(index)
            if in_vocabulary(line, writes, self.lines, index):
                result.doubtful.append(index)
                if _bare_reading(self.lines, index, writes):
                    result.bare_named.append(index)
            return False  # content of the record above
        if not in_vocabulary(line, writes, self.lines, index):
            if not proven:  # content, though in sequence (an escaping writer's record?)
                self.counted.append(index)
                if _lines.kind(line) == _lines.PLAIN:
                    result.doubtful.append(index)  # an escaping writer's custom role
                    result.lowered[index] = Why.WORD
            return False
        if _lines.kind(line) == _lines.PLAIN and line[PLAIN_CONTENT][:1] == "{" \
                and not line[PLAIN_NAME] and typed_word(line[PLAIN_ROLE], writes) \
                and typed_value(line, self.max_depth) is None:
            # a typed record's head with no JSON object after it: no writer's record of an
            # item, but maybe the record above's text (or an item cut short)
            self.counted.append(index)
            result.doubtful.append(index)
            result.lowered[index] = Why.NOT_ITEM
            return False
        if one_line(line, writes) and not _followed(self.lines, index, writes, proven) \
                and not (named_bare(line) and self.lines.closes_after(index)):
            self.counted.append(index)  # no writer wrote such a record with lines below it
            if self.strict:
                self.dropped.append(index)
            return False
        return True

    def head(self, index: int, line: Line) -> None:
        """Line ``index`` starts a record."""
        result, lines = self.result, self.lines
        if self.exposed and may_rise(line):
            # After such a record, any record may be text forged to end it (a typed or
            # bare record too), so none gains authority unproven.
            result.guarded.append(index)
        result.heads.append(index)
        self.expected = lines.numbers[index] + 1
        spilling = spills(line, self.max_depth)
        if spilling:
            if _bare_reading(lines, index, self.writes):
                result.bare_named.append(index)
                spilling = index not in self.way.bare
            if _alone(lines, index) and opens(lines, index):
                self.opened = index + 1
        elif named_bare(line):  # its name may go on below
            spilling = lines.closes_after(index)
        if spilling:
            if self.forged:
                self.forged.clear()
        elif self.exposed:
            self.forged.append(index)
        self.spilling = spilling
        self.exposed = self.exposed or spilling


def _forged(result: Numbering, forged: list[int], is_head: bytearray,
            counted: list[int]) -> bool:
    """Read the records ``forged`` (the last heads, none of which holds spilled content,
    since one that does) as content of that record: a line below them is, so they were
    forged too (docs/spec.md, "Authority"). True: the record above now spills."""
    heads = result.heads
    for index in forged:
        heads.pop()
        result.doubtful.append(index)
        result.lowered[index] = FORGED
        if is_head[index]:
            counted.append(index)
    result.doubtful = int_array(len(heads), sorted(result.doubtful))
    forged.clear()
    return True


def _bare_reading(lines: Numbered, index: int, writes: int, raw: bool = True) -> bool:
    """Whether head ``index``, `N. role (a): b)` alone on its line, is also what a writer
    of bare roles (``writes``) wrote for an empty turn named `a): b`: the line below is
    numbered and (``raw``: a writer of raw content is left) of their vocabulary, or the
    body ends."""
    if index not in lines.marked()[1]:
        return False
    line = lines.line(index)
    if _lines.kind(line) != _lines.PLAIN or not writes & Form.BARE_ROLE:
        return False
    text, start = lines.text, lines.starts[index]
    end = text.find("\n", start)
    if text.find("): ", start, end) < 0 or bare_named(text, start, end) is None:
        return False
    return _alone(lines, index) and (
        not raw or index + 1 == len(lines) or in_vocabulary(lines.line(index + 1), writes))


def _note_bare_named(lines: Numbered, result: Numbering, writes: int) -> None:
    """Note in ``result`` (every numbered line a record) each head with a bare reading."""
    marked = lines.marked()[1]
    if not marked:
        return
    for head in sorted(marked):
        if not result.inside[head] and _bare_reading(lines, head, writes, raw=False):
            result.bare_named.append(head)


def _followed(lines: Numbered, index: int, writes: int, proven: bool) -> bool:
    """Whether numbered line ``index`` may be a record of one line (JSON, bare or typed)
    to the writers of ``writes``: the line below it starts a record too (a numbered line
    that is a record to some writer, or to them when only raw writers are left), or the
    body ends."""
    if not _alone(lines, index):
        return False
    if index + 1 == len(lines):
        return True
    below = lines.line(index + 1)
    return in_vocabulary(below, writes) if proven else _lines.kind(below) != _lines.NUMBERED


def _alone(lines: Numbered, index: int) -> bool:
    """Whether the line after numbered line ``index`` is numbered (or the body ends)."""
    after = lines.text.find("\n", lines.starts[index]) + 1
    return after == (lines.starts[index + 1] if index + 1 < len(lines) else lines.end)


def one_line(line: Line, writes: int) -> bool:
    """Whether every writer wrote the record ``line`` starts on that one line: a JSON, bare
    (:func:`bare_only` too) or typed record."""
    kind = _lines.kind(line)
    if kind == _lines.NUMBERED:
        return not _named_on(line)
    if kind in (_lines.JSON, _lines.BARE):
        return True
    return kind == _lines.PLAIN and not line[PLAIN_NAME] and (
        (line[PLAIN_CONTENT][:1] == "{" and typed_word(line[PLAIN_ROLE], writes))
        or bare_only(line))


def with_heads(lines: Numbered, result: Numbering, extra: Iterable[int]) -> Numbering:
    """``result`` with the lines of ``extra`` read as records too."""
    heads = sorted({*result.heads, *extra})
    numbering = Numbering(int_array(len(lines), heads), result.writers, result.inside)
    numbering.bare_named = result.bare_named
    return _renumbered(lines, numbering)


def every_line(lines: Numbered, inside: bytearray,
               writers: tuple[Generation, ...] | None) -> Numbering:
    """Every numbered line (but those inside quoted summaries) a record: the reading
    of a writer that escapes line breaks, and the as-numbered candidate."""
    count = len(lines)
    return _renumbered(lines, Numbering(int_array(count, _outside(inside, count)), writers,
                                        inside))


def _outside(inside: bytearray, count: int) -> Iterator[int]:
    """The lines of the first ``count`` that are not ``inside``, one at a time: a generator
    function, as mypyc would build the list of a generator expression."""
    for i in range(count):
        if not inside[i]:
            yield i


def _renumbered(lines: Numbered, result: Numbering, counted: Iterable[int] = ()) -> Numbering:
    """``result`` with each head whose number does not follow the one above noted; a line
    of ``counted`` (content in sequence) is followed as a head is."""
    numbers, expected = lines.numbers, 1
    after = iter(counted)
    next_counted = next(after, -1)
    for head in result.heads:
        while 0 <= next_counted < head:
            expected = numbers[next_counted] + 1
            next_counted = next(after, -1)
        if numbers[head] != expected:
            result.renumbered.append(head)
            result.expected.append(expected)
        expected = numbers[head] + 1
    return result
