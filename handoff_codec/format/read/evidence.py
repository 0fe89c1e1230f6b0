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

from .. import grammar
from ..limits import depth_exceeded_at
from . import lines as _lines
from .authority import RANKS, RISING, Why
from .generations import Generation, Sign, candidates, raw_possible
from .json_record import json_value, whole_object
from .lines import (
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
    from collections.abc import Callable, Iterable, Iterator, MutableSequence, Sequence

    from .lines import Line

__all__ = ["MESSAGE_ROLES", "UNTYPED", "Numbered", "Numbering", "bare_named", "every_line",
           "in_vocabulary", "int_array", "json_signs", "may_rise", "numbering", "one_line",
           "shaped", "sign", "spills", "typed_value", "typed_word", "with_heads"]

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
    return bool(writes & Sign.TYPED) and (word in ITEM_TYPES or word == UNTYPED)


def in_vocabulary(line: Line, writes: int) -> bool:
    """Whether a writer of the forms ``writes`` writes ``line`` as the head of a record:
    a message of a role it writes (``MESSAGE_ROLES``, named or bare), a typed record of
    an item type, a JSON record. ``2. Speed: fast`` or ``2. critic: x`` is none."""
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return True
    if kind == _lines.JSON:
        return bool(writes & Sign.JSON)
    if kind == _lines.BARE:
        return bool(writes & Sign.BARE_ROLE)
    if kind == _lines.PLAIN:
        role = line[PLAIN_ROLE]
        if role in MESSAGE_ROLES:
            return True
        if not line[PLAIN_NAME] and line[PLAIN_CONTENT][:1] == "{" and typed_word(role, writes):
            return True
        # a known role whose name holds ":" or "(" (`user (ops:bob)`, `user (a (b)): x`)
        head, _, _ = role.partition(" (")
        return head in MESSAGE_ROLES and role != head
    if kind == _lines.NUMBERED:  # `N. tool`, or `N. role (name)` with a name of any text
        rest = line[NUMBERED_REST]
        head = rest[2:].partition(" (")[0].rstrip(" \t")
        return rest[:2] == ". " and head in MESSAGE_ROLES and bool(writes & Sign.BARE_ROLE)
    return False


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
    return in_vocabulary(line, Sign.ALL)


def typed_value(line: Line, max_depth: int) -> dict[str, object] | None:
    """The JSON object of a `type: {json}` record line (``ITEM_TYPES`` word or ``item``, no
    name), else None. NaN and Infinity are read (json.dumps writes them by default)."""
    if line[PLAIN_CONTENT][:1] != "{" or line[PLAIN_NAME] or not typed_word(
            line[PLAIN_ROLE], Sign.TYPED):
        return None
    return whole_object(line[PLAIN_CONTENT], max_depth, constants=True)


_SPACED = re.compile(r'\{"(?:[^"\\\n]|\\.)*": ')


def sign(line: Line, alone: bool, max_depth: int, value: object = None) -> int:
    """The :class:`Sign` flags of the record that starts with ``line``.

    ``alone`` when the record is that one line (the next line starts a record,
    or the body ends); ``value`` the record's JSON object, when it was read.
    """
    kind = _lines.kind(line)
    if kind == _lines.KNOWN:
        return Sign.EMPTY_TURN if alone and not line[KNOWN_CONTENT] else 0
    if kind == _lines.JSON:
        if value is None:
            value = whole_object(line[JSON_OBJECT], max_depth)
            if value is None and depth_exceeded_at(line[JSON_OBJECT], max_depth) is None:
                value = json_value(line[JSON_OBJECT])  # whole_object's quick bound said no
        if not isinstance(value, dict):
            return 0
        return json_signs(value, line[JSON_OBJECT])
    if kind == _lines.BARE:
        return Sign.BARE_ROLE
    if kind == _lines.PLAIN:
        if line[PLAIN_NAME] and line[PLAIN_ROLE] in KNOWN_ROLES:
            return Sign.NAMED
        if alone and (value is not None or typed_value(line, max_depth) is not None):
            return Sign.TYPED
    return 0


def json_signs(value: dict[str, object], source: str) -> int:
    """The signs of a JSON record: its object ``value`` and its text ``source``."""
    found = Sign.JSON | (Sign.SPACED_JSON if _SPACED.match(source) else 0)
    content = value.get("content")
    if "role" in value and isinstance(content, str) and ("\n" in content or "\r" in content):
        found |= Sign.ESCAPED_BREAK
    return found


def spills(line: Line, max_depth: int) -> bool:
    """Whether the record that starts with ``line`` can hold content a raw writer spilled
    over the lines below it: a `role: content` message (its name may go on below: a
    writer wrote names verbatim), not a JSON, bare or typed record."""
    kind = _lines.kind(line)
    return kind == _lines.KNOWN or (kind == _lines.PLAIN and typed_value(
        line, max_depth) is None) or (kind == _lines.NUMBERED and _named_on(line))


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
    """

    __slots__ = ("doubtful", "expected", "guarded", "heads", "inside", "lowered", "quoted",
                 "renumbered", "signs", "writers")

    def __init__(self, heads: MutableSequence[int], writers: tuple[Generation, ...] | None,
                 inside: bytearray) -> None:
        self.heads, self.writers, self.inside = heads, writers, inside
        self.renumbered = int_array(len(heads))
        self.expected = array("q")
        self.doubtful = int_array(len(heads))
        self.guarded = int_array(len(heads))
        self.lowered: dict[int, int] = {}
        self.signs = 0  # the evidence's signs
        self.quoted = -1  # where a record is that a quoted summary without preamble would hold


def _run(lines: Numbered, inside: bytearray, lowered: dict[int, int] | None = None,
         ) -> array[int]:
    """The best run: indexes of lines numbered n, n+1, ... from the first line (rule 1).

    The best run ending on each number is kept in arrays indexed by the
    number less n: a run reaches number k only through k - 1. A ``lowered``
    line counts against the run that holds it.
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
        score += shaped(lines.line(position)) - (2 if lowered and position in lowered else 0)
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


def numbering(lines: Numbered, start: str, end: str, max_depth: int,
              preambles: tuple[str, ...] | None, lowered: dict[int, int] | None = None,
              ) -> Numbering:
    """The records of a body whose first line is numbered (rules 1 to 3); ``lowered``
    lines (index -> why, :mod:`.authority`) are content of the record above.

    A summary quoted in content is known by the preamble line before its start marker
    line (``preambles``; None: any line). Lines between marker lines without one are
    content too, unless that would swallow a record: then the records are read, and
    ``quoted`` says where the doubt is.
    """
    if preambles is None:
        return _numbering(lines, lines.inside_quoted_summaries(start, end, None), max_depth,
                          lowered)
    inside = lines.inside_quoted_summaries(start, end, preambles)
    loose = lines.inside_quoted_summaries(start, end, None) if lines.text.find(
        start, lines.begin, lines.end) >= 0 else inside
    if loose == inside:
        return _numbering(lines, inside, max_depth, lowered)
    result = _numbering(lines, inside, max_depth, lowered)
    swallowed = [head for head in result.heads if loose[head] and not inside[head]]
    if not swallowed:
        return _numbering(lines, loose, max_depth, lowered)
    result.quoted = lines.starts[swallowed[0]]
    return result


# The signs that rule out every writer that wrote content raw (alone or together): they
# count only from a line that is a record whatever the writer (raw content could forge
# them): the first line, or one after a record no content spills from. `N. role: ` never
# counts: a raw writer wrote it for content that starts with a line break.
_AGAINST_RAW = Sign.EMPTY_TURN | Sign.ESCAPED_BREAK | Sign.SPACED_JSON | Sign.JSON | Sign.NAMED


def _numbering(lines: Numbered, inside: bytearray, max_depth: int,
               lowered: dict[int, int] | None) -> Numbering:
    run: Sequence[int]
    if lowered:
        run = _run(lines, inside, lowered)
    else:
        run = range(len(lines)) if lines.in_order() and not any(inside) \
            else _run(lines, inside)
    signs, against = _evidence(lines, run, max_depth, lowered)
    writers = candidates(against)
    if not raw_possible(writers):
        result = every_line(lines, inside, candidates(signs))
        result.signs = signs
        return result
    result = Numbering(int_array(len(lines)), writers, inside)
    result.signs = signs
    return _heads(lines, result, run, max_depth, lowered)


def _evidence(lines: Numbered, run: Sequence[int], max_depth: int,
              lowered: dict[int, int] | None) -> tuple[int, int]:
    """The signs of the run's records (and of any line that is not numbered), and those of
    them that may rule raw writers out (see _AGAINST_RAW)."""
    text = lines.text
    signs = Sign.SPILLED if lines.unnumbered else 0
    against = signs
    certain = True
    for position, head in enumerate(run):
        if lowered and head in lowered:  # content: evidence of nothing
            certain = False
            continue
        after = text.find("\n", lines.starts[head]) + 1
        following = lines.starts[run[position + 1]] if position + 1 < len(run) else lines.end
        line = lines.line(head)
        found = sign(line, after == following, max_depth)
        signs |= found
        against |= found & ~(Sign.EMPTY_TURN if certain else _AGAINST_RAW)
        certain = certain and after == following and not spills(line, max_depth)
    return signs, against


def _heads(lines: Numbered, result: Numbering, run: Sequence[int], max_depth: int,
           lowered: dict[int, int] | None) -> Numbering:
    """``result`` with the lines that start records under the raw writers it leaves (rule
    3): in order, each line below a record content may spill from is a record only if it
    is in the writers' vocabulary and in the run."""
    writes = 0
    for writer in result.writers or ():
        writes |= writer.writes
    proven = not any(writer.escapes_line_breaks for writer in result.writers or ())
    is_head = bytearray(len(lines))
    for head in run:
        is_head[head] = 1
    heads, inside = result.heads, result.inside
    counted: list[int] = []
    spilling = False  # whether the record above can hold content that spilled
    exposed = False  # whether a record content may have spilled from came before
    for index in range(len(lines)):
        if inside[index]:
            continue
        line = lines.line(index)
        if lowered and index in lowered:
            result.doubtful.append(index)
            result.lowered[index] = lowered[index]
            if is_head[index]:
                counted.append(index)
            continue
        if spilling:
            if not is_head[index]:
                if in_vocabulary(line, writes):
                    result.doubtful.append(index)
                continue  # content of the record above
            if not in_vocabulary(line, writes):
                counted.append(index)  # content, though in sequence: the next one follows it
                if not proven and _lines.kind(line) == _lines.PLAIN:
                    result.doubtful.append(index)  # an escaping writer's custom role
                    result.lowered[index] = Why.WORD
                continue
            if not _alone(lines, index) and one_line(line, writes):
                counted.append(index)  # no writer wrote such a record with lines below it
                continue
        if exposed and may_rise(line):
            # After such a record, any record may be text forged to end it (a typed or
            # bare record too), so none gains authority unproven.
            result.guarded.append(index)
        heads.append(index)
        spilling = spills(line, max_depth)
        exposed = exposed or spilling
    return _renumbered(lines, result, counted)


def _alone(lines: Numbered, index: int) -> bool:
    """Whether the line after numbered line ``index`` is numbered (or the body ends)."""
    after = lines.text.find("\n", lines.starts[index]) + 1
    return after == (lines.starts[index + 1] if index + 1 < len(lines) else lines.end)


def one_line(line: Line, writes: int) -> bool:
    """Whether every writer wrote the record ``line`` starts on that one line: a JSON, bare
    or typed record."""
    kind = _lines.kind(line)
    if kind == _lines.NUMBERED:
        return not _named_on(line)
    if kind in (_lines.JSON, _lines.BARE):
        return True
    return kind == _lines.PLAIN and not line[PLAIN_NAME] and line[PLAIN_CONTENT][:1] == "{" \
        and typed_word(line[PLAIN_ROLE], writes)


def with_heads(lines: Numbered, result: Numbering, extra: Iterable[int]) -> Numbering:
    """``result`` with the lines of ``extra`` read as records too."""
    heads = sorted({*result.heads, *extra})
    return _renumbered(lines, Numbering(int_array(len(lines), heads), result.writers,
                                        result.inside))


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
