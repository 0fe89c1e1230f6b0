"""The lenient reader: current and legacy summaries to items, with a report.

The LALR parser of ``grammar/legacy.lark`` reads the envelope and takes the
body as one token. This module applies the one rule a grammar cannot state,
the record numbering (``_record_heads``), and reads each record's text with
the ``LEGACY_*`` terminals of the same grammar.

Besides the items it returns, memory stays a small multiple of the input:
the body is never copied or split into line objects. One scan finds the
numbered lines and keeps only their offsets and numbers, in arrays of ints;
records are read in place, by offsets into the summary, and recoveries are
kept as a few ints each (:class:`~handoff_codec.format.report.Recoveries`).
"""

from __future__ import annotations

import functools
import re
from array import array
from collections.abc import Callable, Sequence
from itertools import chain, compress, islice, repeat
from itertools import count as count_up
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from lark import Token

from .. import grammar as _grammar
from .. import limits
from ..content import (
    LIST_CONTENT,
    LIST_INFERRED,
    NOT_A_LIST,
    TEXT_ARRAY,
    legacy_list,
    lists_read,
)
from ..errors import DecodeError, DecodeReason, ReadFailure
from ..report import Decoded, Format, Note, Recoveries, RecoveryKind, int_array
from .json_record import json_object, json_value, whole_object
from .strict import (
    KNOWN_ROLES,
    SHARED_ROLES,
    lark_error,
    spilled_content,
    typed_word,
)

__all__ = ["decoded", "parse_lenient", "reading"]

Item = dict[str, Any]
Literals = tuple[tuple[str, str], ...]


Shapes = tuple[tuple[tuple[str, str, int], ...], str, "re.Pattern[str]", str, str]


@functools.cache
def _shapes(literals: Literals) -> Shapes | None:
    """For :func:`_split`: each preamble terminal with the text from it to the
    body and the line the body starts on, the signature line's first
    characters and pattern, the empty transcript and the end marker's line
    break and text.

    None when one preamble is a prefix of the other (the lexer's choice
    between them is then left to the parser), or when the end marker holds a
    line break (no text then ends with the end marker after its last one).
    """
    values = dict(literals)
    preambles = (("PREAMBLE", values["PREAMBLE"]),
                 ("LEGACY_PREAMBLE", _grammar.literal("LEGACY_PREAMBLE", "legacy")))
    (_, first), (_, second) = preambles
    if first.startswith(second) or second.startswith(first) or "\n" in values["END_MARKER"]:
        return None
    heads = tuple((name, head, head.count("\n") + 1) for name, head in (
        (name, f"{preamble}\n{values['START_MARKER']}\n") for name, preamble in preambles))
    return (heads, _grammar.signature_parts()[0], _grammar.terminal("_SIGNATURE"),
            _grammar.literal("EMPTY_TRANSCRIPT"), "\n" + values["END_MARKER"])


def _split(text: str, literals: Literals) -> tuple[str, int, int] | None:
    """The envelope of ``grammar/legacy.lark`` read as the LALR parser reads it, in one pass.

    The preamble terminal and where the body (the ``RECORDS`` token: up to
    the last line break) starts and ends; None for any text this shortcut
    does not cover (the empty transcript, or text that breaks the grammar),
    which the parser then reads. A test checks that both agree.
    """
    shapes = _shapes(literals)
    split = None if shapes is None else _split_shaped(text, shapes)
    return None if split is None else split[:3]


def _split_shaped(text: str, shapes: Shapes) -> tuple[str, int, int, int] | None:
    """:func:`_split` with the configuration's shapes, and the line the body starts on."""
    heads, signed, signature, empty, tail = shapes
    for shape in heads:
        if text.startswith(shape[1]):
            break
    else:
        return None
    name, head, line = shape
    pos = len(head)
    if text.startswith(signed, pos):
        match = signature.match(text, pos)
        if match is not None:
            pos = match.end()
            line += 1
    # The end marker holds no line break: the text after the last one is the marker.
    if text.startswith(empty, pos) or not text.endswith(tail, pos):
        return None
    return name, pos, len(text) - len(tail) + 1, line


def _parse_envelope(text: str, literals: Literals) -> tuple[str, int, int]:
    """The preamble terminal and the body's start and end, read by the LALR parser (for
    the text :func:`_split` leaves); DecodeError for a broken envelope."""
    from lark.exceptions import UnexpectedInput  # Lark only for text the shortcut leaves

    lark_parser = _grammar.legacy_envelope_parser(literals)
    try:
        preamble, body, offset = cast("tuple[Token, str, int]", lark_parser.parse(text))
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    return preamble.type, offset, offset + len(body)


def _legacy(name: str) -> re.Pattern[str]:
    return _grammar.terminal(name, "legacy")


@functools.cache
def _after_line_break() -> re.Pattern[str]:
    """A line break, then RECORD_NUMBER: its matches on every line but the first."""
    numbered = _legacy("RECORD_NUMBER")
    return re.compile(f"\n(?:{numbered.pattern})", numbered.flags)


@functools.cache
def _record_in_order() -> re.Pattern[str]:
    """A whole record of a body whose every numbered line starts a record.

    ``RECORD_NUMBER``, then one of the usual kinds, each read as
    :meth:`_Reader.read_record` reads it:

    * ``role``, ``content``: ``LEGACY_PLAIN`` with a ``KNOWN_ROLE`` and no
      name. A known role followed by ":" is what ``LEGACY_PLAIN`` reads as that
      role, with no name and the rest of the record as content: the rest of
      its line and every line up to the next numbered one (spilled content);
    * ``named_role``, ``name``, ``named_content``: the same with a name, as
      ``LEGACY_PLAIN`` reads the name on one line (no ":" or "(" in it);
    * ``bare``, ``bare_name``: ``LEGACY_BARE`` (a line without ":"), alone;
    * ``json``: what ``LEGACY_JSON`` reads as JSON, alone on its line;
    * ``typed``, ``typed_content``: ``LEGACY_PLAIN`` with a ``type`` word of
      ``LEGACY_TYPED_HEAD`` as the role (never a known role: the first
      branch reads that), and no name, alone on its line;

    or, group ``other``, the record's text up to the line break before the
    next numbered line (or the end): one that the general reading of a
    record reads. A record is one match however many lines it spans.
    """
    numbered = _legacy("RECORD_NUMBER").pattern
    if "(?P<number>" not in numbered:
        raise AssertionError(f"RECORD_NUMBER {numbered!r} has no number group")
    unnamed = numbered.replace("(?P<number>", "(?:")
    following = f"(?={unnamed}|\\Z)"  # the next record, or the end
    rest = spilled_content()  # up to the line break before the next record or the end
    known = _grammar.terminal("KNOWN_ROLE").pattern
    name = r"[^\S\n]*[^\s:(][^\n:(]*"  # LEGACY_PLAIN's and LEGACY_BARE's name, on one line
    return re.compile(
        f"{numbered}(?: (?:(?P<role>{known}): ?(?P<content>{rest})"
        f"|(?P<named_role>{known}) \\((?P<name>{name})\\): ?(?P<named_content>{rest})"
        f"|(?P<bare>{known})(?: \\((?P<bare_name>{name})\\))?[ \\t]*"
        f"|(?P<json>\\{{[^\\n]*)"
        f"|(?P<typed>{typed_word().pattern}): ?(?P<typed_content>[^\\n]*))\\n{following}"
        f"|(?P<other>{rest})\\n)")


def _number(digits: str) -> int:
    """A record's number; 0 (never in sequence) for one too long for int() to accept."""
    return int(digits) if len(digits) <= 18 else 0


@functools.cache
def _marker_lines(start: str, end: str) -> re.Pattern[str]:
    """A line that is the start or the end marker."""
    return re.compile(f"^(?:{re.escape(start)}|{re.escape(end)})$", re.MULTILINE)


class _Numbered:
    """The numbered lines of the body ``text[begin:end]``: their offsets in
    ``text`` and their numbers, as arrays of ints."""

    def __init__(self, text: str, begin: int = 0, end: int | None = None) -> None:
        self.text, self.begin = text, begin
        self.end = len(text) if end is None else end
        self.starts = int_array(self.end)
        self.numbers = array("q")
        start, number = self.starts.append, self.numbers.append
        # RECORD_NUMBER's matches: its "^" matches where a line starts, at
        # ``begin`` (the body starts a line) or after a "\n". The line breaks
        # are found by a search for "\n", much faster than trying "^" at
        # every offset; a test checks that both give the same lines.
        first = _legacy("RECORD_NUMBER").match(text, begin, self.end)
        if first is not None:
            start(first.start())
            number(_number(first["number"]))
        for match in _after_line_break().finditer(text, begin, self.end):
            start(match.start() + 1)
            number(_number(match["number"]))

    def shaped(self) -> bytearray:
        """1 for each numbered line shaped like a record (``LEGACY_HEAD``), else 0."""
        head = _legacy("LEGACY_HEAD").match
        return bytearray(map(bool, map(head, repeat(self.text), self.starts, repeat(self.end))))

    def unnumbered_line(self) -> bool:
        """Whether a body line is not numbered: content that a raw writer spilled."""
        return self.text.count("\n", self.begin, self.end) != len(self.starts)

    def escaping_writer_sign(self, max_depth: int) -> bool:
        """Whether a line shows a writer that escapes line breaks (rule 2 of
        legacy.lark): one JSON object on a numbered line, or a known role with
        an empty content."""
        text, end = self.text, self.end
        json_line = _legacy("LEGACY_JSON_LINE").match
        empty_turn = _legacy("LEGACY_EMPTY_TURN").match
        for start in self.starts:
            if text.startswith("{", text.index(".", start) + 2):
                match = json_line(text, start, end)
                if match is not None and whole_object(match["json"], max_depth) is not None:
                    return True
            elif empty_turn(text, start, end) is not None:
                return True
        return False

    def old_writer_sign(self, shaped: bytearray) -> bool:
        """Whether the body shows a sign that its numbering cannot be trusted
        to tell records from content (rule 2c of legacy.lark)."""
        text, begin, end = self.text, self.begin, self.end
        if self.unnumbered_line():
            return True
        # a line shaped like a record numbered lower than one above it
        numbers = array("q", compress(self.numbers, shaped))
        if not all(map(int.__le__, numbers, numbers[1:])):
            return True
        typed = _legacy("LEGACY_TYPED_HEAD").finditer(text, begin, end)
        return any(match["type"] not in KNOWN_ROLES for match in typed)

    def inside_spilled_summaries(self, start: str, end: str) -> bytearray:
        """1 for each numbered line between a spilled summary's own marker lines."""
        inside = bytearray(len(self.starts))
        text = self.text
        if text.find(start, self.begin, self.end) < 0:
            return inside
        markers = _marker_lines(start, end)
        numbered = _legacy("RECORD_NUMBER").match
        depth, index, count = 0, 0, len(self.starts)
        for marker in markers.finditer(text, self.begin, self.end):
            if numbered(text, marker.start()):
                continue
            while index < count and self.starts[index] < marker.start():
                inside[index] = depth > 0
                index += 1
            depth += (marker[0] == start) - (marker[0] == end and depth > 0)
        while index < count:
            inside[index] = depth > 0
            index += 1
        return inside


Heads = tuple["array[int]", "array[int]"]


def _record_heads(lines: _Numbered, start: str, end: str, max_depth: int = 200) -> Heads:
    """Indexes (into ``lines``) of the numbered lines that start records, and
    of those where the reading rests on no evidence (rule 2c: ``ambiguous``).

    The rule is stated in the header of ``grammar/legacy.lark``: the run of
    lines numbered 1, 2, 3, ... from the first line, then the other numbered
    lines as the evidence of the writer decides.

    When the numbered lines outside spilled summaries are numbered 1, 2, 3,
    ... from the first line, they are the run, and each starts a record. The
    rest of the rule has nothing to add: the lines inside a spilled summary
    are content (rule 1), and its marker lines are lines that are not
    numbered, a sign of the raw writer, so rule 2 reads no other line as a
    record (2b) and finds no doubt (2b or 2c).
    """
    inside = lines.inside_spilled_summaries(start, end)
    count = len(lines.starts)
    if count and lines.starts[0] == lines.begin:
        if not any(inside):
            if lines.numbers == array("q", range(1, count + 1)):
                return int_array(count, range(count)), int_array(count)
        else:  # (the first line is numbered: it is in no spilled summary)
            outside = int_array(count, (index for index in range(count) if not inside[index]))
            if all(map(int.__eq__, map(lines.numbers.__getitem__, outside), count_up(1))):
                return outside, int_array(count)
    return _heads_by_rule(lines, inside, max_depth)


def _heads_by_rule(lines: _Numbered, inside: bytearray, max_depth: int = 200) -> Heads:
    """:func:`_record_heads` for any numbering: the best run, then the evidence.

    The best run ending on each number is kept in arrays indexed by the
    number less one: a run reaches number n only through n - 1, so the
    numbers reached are 1 to len(scores). A line numbered 0 is in no run.
    """
    shaped = lines.shaped()
    count = len(lines.starts)
    scores, ends = int_array(count), int_array(count)  # of the best run ending on each number
    parents = int_array(count, [-1]) * count
    for position, number in enumerate(lines.numbers):
        if inside[position] or (number == 1) != (lines.starts[position] == lines.begin):
            continue
        if number == 1:
            score, parent = 0, -1
        elif 2 <= number <= len(scores) + 1:
            score, parent = scores[number - 2], ends[number - 2]
        else:
            continue
        score += shaped[position]
        if number > len(scores):
            scores.append(score)
            ends.append(position)
        elif score >= scores[number - 1]:
            scores[number - 1], ends[number - 1] = score, position
        else:
            continue
        parents[position] = parent
    run = int_array(count)
    if ends:
        run.append(ends[-1])
        while parents[run[-1]] >= 0:
            run.append(parents[run[-1]])
        run.reverse()
    none = int_array(count)
    if len(run) == count:  # every numbered line is in the run: nothing to decide
        return run, none
    raw = lines.unnumbered_line()
    escaping = lines.escaping_writer_sign(max_depth)
    if escaping and not raw:  # 2a: each record is one line
        return int_array(count, range(count)), none
    if raw and not escaping:  # 2b: the other lines are content
        return run, _rivals(lines.numbers, run, inside, shaped)
    # 2c: the text cannot tell. Each place where the other reading differs is
    # doubtful: a record whose number does not follow the record above, and a
    # line read as content that would read as a record alone (shaped like one,
    # or a PLAIN_RECORD of the current grammar).
    is_head = bytearray(count)
    for head in run:
        is_head[head] = 1
    if not lines.old_writer_sign(shaped):
        is_head = bytearray(map(int.__or__, is_head, shaped))
    text, starts, numbers, end = lines.text, lines.starts, lines.numbers, lines.end
    plain = _grammar.terminal("PLAIN_RECORD").match
    doubtful = int_array(count)
    above = -1
    for index in range(count):
        if is_head[index]:
            if above >= 0 and numbers[index] != numbers[above] + 1:
                doubtful.append(index)
            above = index
        elif not inside[index] and (shaped[index] or plain(text, starts[index], end)):
            doubtful.append(index)
    return int_array(count, compress(range(count), is_head)), doubtful


def _rivals(numbers: Sequence[int], run: Sequence[int], inside: bytearray,
            shaped: bytearray) -> array[int]:
    """The content lines of 2b that could take a run line's place: shaped like
    a record, with the number of a line in the run, between that line's
    neighbours in the run. Which of the two starts the record, the text
    cannot tell."""
    doubtful = int_array(len(numbers))
    heads = set(run)
    for index, number in enumerate(numbers):
        if index in heads or inside[index] or not shaped[index] or not 1 < number <= len(run):
            continue
        after = run[number] if number < len(run) else len(numbers)
        if run[number - 2] < index < after:
            doubtful.append(index)
    return doubtful


# The writer generations, oldest first, and those that each sign in a read
# summary allows (README, "decode"): content spilled over lines, a
# `type: {json}` record and list content after the colon only 0.6 to 0.17.0
# wrote; a bare role for an empty turn, 0.6 to 0.19; a JSON record, 0.17.1 and
# later; a known role with an empty content (`N. role: `), 0.20 and later.
_GENERATIONS = (Format.LEGACY_0_6, Format.LEGACY_0_17_1, Format.CURRENT)
_ALLOWED_BY = {
    RecoveryKind.CONTINUATION: frozenset({Format.LEGACY_0_6}),
    RecoveryKind.TYPED_RECORD: frozenset({Format.LEGACY_0_6}),
    RecoveryKind.LIST_CONTENT: frozenset({Format.LEGACY_0_6}),
    RecoveryKind.BARE_ROLE: frozenset({Format.LEGACY_0_6, Format.LEGACY_0_17_1}),
}
_JSON_RECORD = frozenset({Format.LEGACY_0_17_1, Format.CURRENT})
_EMPTY_TURN = frozenset({Format.CURRENT})


def _format(kinds: set[RecoveryKind], *, json_record: bool,
            empty_turn: bool) -> tuple[Format, tuple[Format, ...]]:
    """The format label of a lenient read and its candidates, from the evidence.

    No recovery (but ``array_as_text``, a note on a line of the current
    format): the text is in the current format. Otherwise the writer is
    one of the generations that every sign allows (all of them when there is
    no sign; when signs disagree, any generation one of them allows): one
    generation is its own label, several are ``legacy`` with the candidates.
    """
    if not kinds - {RecoveryKind.ARRAY_AS_TEXT}:
        return Format.CURRENT, ()
    shown = [_ALLOWED_BY[kind] for kind in kinds if kind in _ALLOWED_BY]
    shown += [_JSON_RECORD] * json_record + [_EMPTY_TURN] * empty_turn
    allowed = frozenset(_GENERATIONS).intersection(*shown)
    if not allowed:
        allowed = frozenset().union(*shown)
    if len(allowed) == 1:
        return next(iter(allowed)), ()
    return Format.LEGACY, tuple(form for form in _GENERATIONS if form in allowed)


def _quoted(text: str, pos: int, length: int) -> str:
    return f"a numbered line that is not a record; not read as a turn: {text[pos:pos + length]!r}"


def _continued(_text: str, count: int, _unused: int) -> str:
    return f"the record continues on the next {count} line(s); joined with '\\n'"


def _typed(text: str, pos: int, length: int) -> str:
    role = text[pos:pos + length]
    return f"'{role}: {{...}}' read as an item of type {role!r}"


def _renumbered(text: str, pos: int, above: int) -> str:
    number = text[pos:text.index(".", pos)]
    shown = number if len(number) <= 20 else number[:20] + "..."
    expected = 1 if above < 0 else _number(text[above:text.index(".", above)]) + 1
    return f"a record numbered {shown} where {expected} was expected; read as a record of its own"


_NO_EVIDENCE = ("nothing in the summary shows whether its writer escaped line breaks "
                "(openai-agents 0.17.1 and later) or wrote content raw (0.6 to 0.17.0)")


def _ambiguous_record(text: str, pos: int, above: int) -> str:
    return (f"{_renumbered(text, pos, above)}; {_NO_EVIDENCE}, so it may be a line "
            "of the content above")


def _ambiguous_content(text: str, pos: int, length: int) -> str:
    return (f"a line shaped like a record, out of sequence, read as content of the record "
            f"above: {text[pos:pos + length]!r}; {_NO_EVIDENCE}, so it may be a record "
            "of its own")


class _Code:
    """What the reader notes: indexes into ``_NOTES`` (plain ints: an enum's are slower)."""

    LEGACY_PREAMBLE = 0
    BARE_ROLE = 1
    UNRECOGNISED = 2  # the record's offset and length (at most 60)
    NON_STANDARD_JSON = 3
    NOT_JSON = 4
    CONTINUATION = 5  # how many lines continue the record
    TYPED_RECORD = 6  # the role's offset and length
    RENUMBERED = 7  # the record's offset, and that of the record above (-1 for none)
    LIST_CONTENT = 8
    LIST_CONTENT_INFERRED = 9
    ARRAY_AS_TEXT = 10
    LIST_PENDING = 11  # content that starts with "[": one of the three above, or none
    AMBIGUOUS_RECORD = 12  # as RENUMBERED
    AMBIGUOUS_CONTENT = 13  # the line's offset and length (at most 60)


_NOTES: tuple[Note, ...] = tuple(note for _, note in sorted({
    _Code.LEGACY_PREAMBLE: Note(RecoveryKind.LEGACY_PREAMBLE, "the short legacy preamble"),
    _Code.BARE_ROLE: Note(
        RecoveryKind.BARE_ROLE, "an empty turn written as a bare role; read with content ''. "
        "Whether it was None or '' is not in the text", lost=True),
    _Code.UNRECOGNISED: Note(RecoveryKind.UNRECOGNISED, _quoted, lost=True),
    _Code.NON_STANDARD_JSON: Note(
        RecoveryKind.NON_STANDARD_JSON, "NaN or Infinity, which JSON (RFC 8259) does not allow; "
        "read as a float, as json.loads does"),
    _Code.NOT_JSON: Note(
        RecoveryKind.NOT_JSON,
        "starts with '{' but is not JSON; read as a plain record, as the Agents SDK does"),
    _Code.CONTINUATION: Note(RecoveryKind.CONTINUATION, _continued),
    _Code.TYPED_RECORD: Note(RecoveryKind.TYPED_RECORD, _typed),
    _Code.RENUMBERED: Note(RecoveryKind.RENUMBERED, _renumbered),
    _Code.LIST_CONTENT: Note(
        RecoveryKind.LIST_CONTENT, "list content written as a JSON array; read back as a list"),
    _Code.LIST_CONTENT_INFERRED: Note(
        RecoveryKind.LIST_CONTENT, "a JSON array of Responses input content parts: inferred to "
        "be list content written by openai-agents 0.6 to 0.17.0; read back as a list"),
    _Code.ARRAY_AS_TEXT: Note(
        RecoveryKind.ARRAY_AS_TEXT, "a JSON array as text: list content if openai-agents 0.6 to "
        "0.17.0 wrote this summary; read as the text", lost=True),
    _Code.LIST_PENDING: Note(RecoveryKind.LIST_CONTENT, "(decided after the last record)"),
    _Code.AMBIGUOUS_RECORD: Note(RecoveryKind.AMBIGUOUS, _ambiguous_record, lost=True),
    _Code.AMBIGUOUS_CONTENT: Note(RecoveryKind.AMBIGUOUS, _ambiguous_content, lost=True),
}.items()))
# The codes of the signs of the old writer, 0.6 to 0.17.0: content that
# continues on more lines, and a `type: {json}` record.
_OLD_WRITER = frozenset(code for code, note in enumerate(_NOTES)
                        if note.kind in (RecoveryKind.CONTINUATION, RecoveryKind.TYPED_RECORD))


@functools.cache
def _format_of(codes: frozenset[int], json_record: bool,
               empty_turn: bool) -> tuple[Format, tuple[Format, ...]]:
    """:func:`_format` for the recoveries noted with ``codes``, worked out once for each."""
    return _format({_NOTES[code].kind for code in codes}, json_record=json_record,
                   empty_turn=empty_turn)


Match = Callable[[str, int, int], "re.Match[str] | None"]


@functools.cache
def _record_matchers() -> tuple[Match, Match, Match, Match]:
    """``fullmatch`` of LEGACY_JSON, LEGACY_PLAIN, LEGACY_NAMED and LEGACY_BARE."""
    return (_legacy("LEGACY_JSON").fullmatch, _legacy("LEGACY_PLAIN").fullmatch,
            _legacy("LEGACY_NAMED").fullmatch, _legacy("LEGACY_BARE").fullmatch)


class _Reader:
    """Reads the records of summary ``text`` into items, noting every recovery.

    Content that starts with "[" can be read only once every record is read
    (see :meth:`list_content`): its note is then held in place, at its line,
    as ``LIST_PENDING``, and ``listed`` holds the index of each such item.
    """

    __slots__ = ("empty_plain", "json", "listed", "max_depth", "note", "recoveries", "text")

    def __init__(self, text: str, max_depth: int, preamble: str = "PREAMBLE") -> None:
        self.text = text
        self.max_depth = max_depth
        self.recoveries = Recoveries(text, _NOTES)
        self.note = self.recoveries.add
        if preamble == "LEGACY_PREAMBLE":
            self.note(1, _Code.LEGACY_PREAMBLE)
        self.listed = array("i" if len(text) < 2**31 else "q")  # item indexes
        # Signs of openai-agents >= 0.17.1, which wrote lists as JSON records
        # and (>= 0.20) empty turns as `N. role: `.
        self.json = self.empty_plain = False

    def read(self, lines: _Numbered, heads: array[int], line: int,
             doubtful: array[int] | None = None) -> list[Item]:
        """The items of the records that start on numbered lines ``heads``, the
        first on ``line``. ``doubtful`` (see :func:`_record_heads`) holds the
        numbered lines where the reading rests on no evidence: heads noted
        ``ambiguous`` rather than ``renumbered``, and lines shaped like
        records read as content, noted ``ambiguous`` after their record's notes."""
        starts, numbers = lines.starts, lines.numbers
        items: list[Item] = []
        note, count, read_record = self.note, self.text.count, self.read_record
        above, above_start = 0, -1  # the number of the record above, and its offset
        doubts = iter(doubtful or ())
        doubt = next(doubts, -1)
        # Each record runs from its head line to the line break before the next head.
        stops = chain(map(starts.__getitem__, islice(heads, 1, None)), (lines.end,))
        for head, stop in zip(heads, stops, strict=True):
            start, end, number = starts[head], stop - 1, numbers[head]
            if head == doubt:
                note(line, _Code.AMBIGUOUS_RECORD, start, above_start)
                doubt = next(doubts, -1)
            elif number != above + 1:
                note(line, _Code.RENUMBERED, start, above_start)
            above, above_start = number, start
            continued = count("\n", start, end)
            read_record(items, start, end, line, continued)
            at, at_line = start, line  # counted on from the last doubtful line
            while doubt >= 0 and starts[doubt] < stop:  # lines of this record's content
                at_line += count("\n", at, starts[doubt])
                at = starts[doubt]
                newline = self.text.find("\n", at, at + 60)  # quote at most 60 characters
                note(at_line, _Code.AMBIGUOUS_CONTENT, at, 60 if newline < 0 else newline - at)
                doubt = next(doubts, -1)
            line += continued + 1
        return items

    def read_in_order(self, begin: int, stop: int, line: int) -> list[Item] | None:
        """:meth:`read` for a body whose numbered lines are numbered 1, 2, 3, ...
        from its first line; None for any other body (then nothing it noted counts).
        It may raise ReadFailure before it finds the body out of order: the
        caller then reads the body by the general rule.

        Each numbered line of such a body starts a record (``_record_heads``),
        and every other line continues the record above: one match of
        :func:`_record_in_order` per record reads it, lines and all, the usual
        ones as :meth:`read_record` reads them. A test checks that both
        readings agree.
        """
        text, max_depth = self.text, self.max_depth
        items: list[Item] = []
        append, note, shared = items.append, self.note, SHARED_ROLES
        # A note of the usual kinds is added in place: the reader notes one per bare role.
        add_ints, add_code = self.recoveries.appenders()
        json = empty_plain = False
        scan = _record_in_order().scanner(text, begin, stop).match  # type: ignore[attr-defined]
        end = begin  # where the last record read ends
        for number in map(str, count_up(1)):
            match = scan()
            if match is None:
                break
            end = match.end()
            (digits, role, content, named_role, name, named_content, bare, bare_name,
             json_text, typed, typed_content, other) = match.groups()
            if digits != number:
                return None
            if role is not None or named_role is not None:
                if role is None:
                    role, content = named_role, named_content
                continued = 0
                if not content:
                    empty_plain = True
                else:
                    if "\n" in content:  # content that spilled onto the lines below
                        continued = content.count("\n")
                        note(line, _Code.CONTINUATION, continued)
                    if content[:1] == "[":
                        note(line, _Code.LIST_PENDING)
                        self.listed.append(len(items))
                append({"role": shared[role], "content": content} if name is None
                       else {"role": shared[role], "name": name, "content": content})
                line += continued
            elif bare is not None:
                add_ints((line, 0, 0))
                add_code(_Code.BARE_ROLE)
                append({"role": shared[bare], "content": ""} if bare_name is None
                       else {"role": shared[bare], "name": bare_name, "content": ""})
            elif json_text is not None and \
                    (value := whole_object(json_text, max_depth)) is not None:
                json = True
                self.append_item(items, value, line)
            elif typed is not None and isinstance(value := json_value(typed_content), dict):
                add_ints((line, match.start("typed"), len(typed)))
                add_code(_Code.TYPED_RECORD)
                value["type"] = typed
                self.append_item(items, value, line)
            elif typed is not None:
                if not typed_content:
                    empty_plain = True
                self.append_item(items, {"role": typed, "content": typed_content}, line)
            else:  # JSON that does not read, or any other record: read_record reads it
                continued = other.count("\n") if other is not None else 0
                self.read_record(items, match.start(), end - 1, line, continued)
                line += continued
            line += 1
        if end != stop:
            return None
        self.json = self.json or json
        self.empty_plain = self.empty_plain or empty_plain
        return items

    def read_record(self, items: list[Item], start: int, end: int, line: int,
                    continued: int) -> None:
        """Append the item of the record ``text[start:end]`` (on ``line``, continued on
        ``continued`` more lines) to ``items``; nothing when it is not a record."""
        text = self.text
        # The usual record, `role: content` with a known role, read here as
        # :meth:`plain_record` reads it, without its calls (the hot path).
        plain = _record_matchers()[1](text, start, end) if text.find(":", start, end) >= 0 \
            else None
        if plain is not None:
            role, name, content = plain.group("role", "name", "content")
            role = SHARED_ROLES.get(role)
            if role is not None:
                if continued:
                    self.note(line, _Code.CONTINUATION, continued)
                if not content:
                    self.empty_plain = True
                if content[:1] == "[":
                    self.note(line, _Code.LIST_PENDING)
                    self.listed.append(len(items))
                items.append({"role": role, "content": content} if name is None
                             else {"role": role, "name": name, "content": content})
                return
        item = self.record(start, end, line, continued, plain)
        if item is not None:
            self.append_item(items, item, line)

    def append_item(self, items: list[Item], item: Item, line: int) -> None:
        """Append ``item``, read from a record that is not a plain one with a known role."""
        content = item.get("content")
        if type(content) is str and content[:1] == "[" and "role" in item:
            self.note(line, _Code.LIST_PENDING)
            self.listed.append(len(items))
        items.append(item)

    def record(self, start: int, end: int, line: int, continued: int,
               plain: re.Match[str] | None) -> Item | None:
        """The item of the record ``text[start:end]``, or None when it is not a record.

        ``plain`` is the record's LEGACY_PLAIN match, None when it has no ":"
        or does not match. A match with a known role never comes here:
        :meth:`read` reads that record itself (a role "{..." is not known, so
        such a record is never LEGACY_JSON).
        """
        text = self.text
        json_match, _, named_match, bare_match = _record_matchers()
        # Both plain patterns need a ":", LEGACY_JSON a "{"; without one, skip their scan.
        colon = plain is not None or text.find(":", start, end) >= 0
        role, name, content = plain.group("role", "name", "content") if plain else ("", None, "")
        if text.find("{", start, end) >= 0:
            match = json_match(text, start, end)
            if match is not None:
                item = self.json_record(match, line)
                if item is not None:
                    return item
        if plain is None or name is None or role.count("(") != role.count(")"):
            # `user (team:alice): q` reads as role "user (team" by the first
            # colon, and `assistant (agent (v2)): a` as role "assistant (agent"
            # and name "v2)": a known role with a name holding ":" or "(" is
            # likelier. A role that closes each parenthesis it opens and has a
            # name, as in the Agents SDK's `assistant (bot) (0): ` for role
            # "assistant (bot)" and name "0", or `assistant (bot)0 (x): ` for
            # role "assistant (bot)0", keeps that reading.
            named = named_match(text, start, end) if colon else None
            if named is not None:
                plain = named
                role, name, content = plain.group("role", "name", "content")
        if plain is not None:
            return self.plain_record(plain, role, name, content, line, continued)
        match = bare_match(text, start, end)
        if match is not None:
            self.note(line, _Code.BARE_ROLE)
            return _fields(match, "")
        self.note(line, _Code.UNRECOGNISED, start, min(end - start, 60))
        return None

    def whole_object(self, source: str) -> Item | None:
        """:func:`_whole_object` within this reader's ``max_depth``."""
        return whole_object(source, self.max_depth)

    def json_record(self, match: re.Match[str], line: int) -> Item | None:
        source = match["json"]
        value = self.whole_object(source)
        if value is not None:
            self.json = True
            return value
        try:
            item = json_object(source, match.start("json"), self.max_depth,
                               on_constant=lambda: self.note(line, _Code.NON_STANDARD_JSON))
            self.json = True
            return item
        except ReadFailure as failure:
            if failure.reason is DecodeReason.DEPTH:
                raise
        self.note(line, _Code.NOT_JSON)
        return None

    def plain_record(self, match: re.Match[str], role: str, name: str | None, content: str,
                     line: int, continued: int) -> Item:
        role = SHARED_ROLES.get(role, role)
        if continued:
            self.note(line, _Code.CONTINUATION, continued)
        elif role not in KNOWN_ROLES and name is None:
            typed = json_value(content)
            if isinstance(typed, dict):
                self.note(line, _Code.TYPED_RECORD, match.start("role"), len(role))
                typed["type"] = role
                return typed
        if not content:
            self.empty_plain = True
        if name is None:
            return {"role": role, "content": content}
        return {"role": role, "name": name, "content": content}

    def list_content(self, items: list[Item], *, read: bool, old_writer: bool) -> None:
        """Settle the notes held for content that starts with "[": with ``read``,
        read it as a list or report it as ambiguous; else it stays text, unnoted."""
        codes = bytearray(_list_code(items[index], old_writer=old_writer)
                          for index in self.listed) if read else bytearray()
        self.recoveries.settle(_Code.LIST_PENDING, codes)


# The note for each reading of content that starts with "[" (``_content.legacy_list``).
_LIST_NOTES = {LIST_CONTENT: _Code.LIST_CONTENT, LIST_INFERRED: _Code.LIST_CONTENT_INFERRED,
               TEXT_ARRAY: _Code.ARRAY_AS_TEXT, NOT_A_LIST: _Code.LIST_PENDING}


def _list_code(item: Item, *, old_writer: bool) -> int:
    """The list content note for ``item``, whose content starts with "["; LIST_PENDING for none."""
    kind, value = legacy_list(item["content"], old_writer=old_writer)
    if value is not None:
        item["content"] = value
    return _LIST_NOTES[kind]


def _fields(match: re.Match[str], content: str) -> Item:
    role, name = match.group("role", "name")
    role = SHARED_ROLES.get(role, role)
    if name is None:
        return {"role": role, "content": content}
    return {"role": role, "name": name, "content": content}


Read = Callable[[str], tuple[_Reader, list[Item]]]


def parse_lenient(
    text: str, literals: tuple[tuple[str, str], ...], start: str, end: str, max_depth: int,
    *, max_records: int = limits.DEFAULT_MAX_RECORDS,
) -> Decoded:
    """Read a summary of any generation, reporting every recovery.

    The router (``_route``) sends here the text that the strict reader does not
    read as this reader would. Raises DecodeError on more than ``max_records``
    numbered lines, before reading anything else.
    """
    return decoded(*reading(literals, start, end, max_depth, max_records)(text))


def decoded(reader: _Reader, items: list[Item]) -> Decoded:
    """The report of a reading: its items, the writer's generation and the recoveries."""
    form, candidates = _format_of(reader.recoveries.codes(), reader.json, reader.empty_plain)
    # Built without validation: the items are plain JSON data made here.
    return Decoded(items=items, format=form, candidates=candidates, recoveries=reader.recoveries)


@functools.cache
def reading(literals: Literals, start: str, end: str, max_depth: int, max_records: int) -> Read:
    """The lenient reading for one configuration: the reader that read a text (its
    recoveries and signs of the writer) and the items. What every call would work
    out (the envelope's shapes, the record limit) is worked out here, once."""
    shapes = _shapes(literals)
    lines_allowed = max_records + 2  # a text of no more lines holds no more records

    def read(text: str) -> tuple[_Reader, list[Item]]:
        if text.count("\n") > lines_allowed:
            limits.check_records(text, max_records=max_records)
        split = None if shapes is None else _split_shaped(text, shapes)
        if split is None:
            preamble, begin, stop = _parse_envelope(text, literals)
            line = text.count("\n", 0, begin) + 1
        else:
            preamble, begin, stop, line = split
        try:
            # Without a spilled summary's marker in the body, a body numbered 1, 2,
            # 3, ... is read in one pass; any other is read by the numbering rule.
            reader = _Reader(text, max_depth, preamble)
            try:
                items = reader.read_in_order(begin, stop, line) \
                    if text.find(start, begin, stop) < 0 else None
            except ReadFailure:  # the general reading decides whether, and where, it fails
                items = None
            if items is None:
                reader = _Reader(text, max_depth, preamble)
                lines = _Numbered(text, begin, stop)
                heads, doubtful = _record_heads(lines, start, end, max_depth)
                if stop > begin and (not heads or lines.starts[heads[0]] != begin):
                    raise DecodeError("text before the first record", text, begin,
                                      ("record 1",), DecodeReason.NUMBERING)
                items = reader.read(lines, heads, line, doubtful)
        except ReadFailure as failure:
            raise failure.at(text) from None
        if reader.listed:  # each item listed has its note LIST_PENDING
            old_writer = not reader.recoveries.codes().isdisjoint(_OLD_WRITER)
            reader.list_content(items, read=lists_read(
                old_writer=old_writer, json_record=reader.json, empty_turn=reader.empty_plain),
                old_writer=old_writer)
        return reader, items

    return read
