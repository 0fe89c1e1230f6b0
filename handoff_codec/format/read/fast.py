"""The fast engine: a summary whose records are numbered 1, 2, 3, ... read in one pass.

When every numbered line is a record in sequence, the numbering leaves
nothing to decide (``evidence.py``, rule 2): the records can be read as the
lines come, and the evidence taken from them as they are read. That is the
usual summary, legacy ones included. One ``findall`` of the usual lines
(:func:`~.lines.usual_pattern`) gives each line, read by a small function:

* :meth:`_Body.lines`: ``KNOWN_LINE`` and ``JSON_LINE``, the current format; any
  other line goes to
* :meth:`_Body.other`: ``PLAIN_LINE``, ``BARE_LINE`` (``bare_role``), a
  ``PLAIN_LINE`` whose word is an ``ITEM_TYPE`` before a JSON object
  (``typed_record``), each by its own terminal, and ``TEXT_LINE``: content of
  the `role: content` record above it, spilled (``continuation``).

It gives up (None) on anything else, for the steps of ``reader.py`` to read:
another envelope, a number out of sequence, a ``NUMBERED_LINE``, a line below
a record that holds no spilled content, a summary quoted in the body, a name
that may hold ":" or "(", a JSON record that is not a whole RFC 8259 object
within ``max_depth``, more than ``max_records`` records, a line a raw writer
may have written as content that would gain authority (``authority.py``);
with a report, content that may be a list. Strictly, only the current format
(no line break but "\\n" and no NUL in the body). The Lark reference
(``reference.py``) always takes the steps, and tests check on arbitrary text
that both engines agree.
"""

from __future__ import annotations

from .. import grammar
from ..limits import depth_exceeded_at
from .authority import RANKS, RISING, lowered, may_rise
from .evidence import UNTYPED, json_forms, spaced, typed_word
from .generations import Form, candidates, raw_possible, writes_of
from .json_record import strict_scanner, whole_object
from .lines import usual_pattern
from .notes import Code
from .raw_breaks import raw_break_finder
from .records import content_parts
from .vocabulary import SHARED_ROLES, message

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from typing import Any

    from ..report import Recoveries

__all__ = ["FastEngine"]

Item = dict[str, "Any"]
# The items read, and the Form flags of their records.
Read = tuple[list[Item], int]

# How many characters of whole lines one split reads: its list of lines stays
# small (a few hundred), which a long transcript reads faster.
_CHUNK = 16_384
# Each record number as text, to compare with: grown to the longest body read
# (at most ``max_records`` strings).
_NUMBERS = ["0", "1"]
# The forms a record shows wherever it is, that rule out a raw writer (evidence.py).
_AGAINST_ANYWHERE = Form.SPILLED | Form.BARE_ROLE | Form.TYPED


class FastEngine:
    """The one pass of one codec configuration (envelope and limits), built once."""

    __slots__ = ("bare", "deep", "empty", "findall", "first", "head", "head_lines", "known",
                 "legacy_head", "legacy_lines", "max_depth", "max_records", "named", "numbered",
                 "plain", "quoted", "raw_break", "scan", "signature", "signed", "tail")

    def __init__(self, preamble: str, legacy: str, start: str, end: str, max_depth: int,
                 max_records: int) -> None:
        self.head, self.legacy_head = f"{preamble}\n{start}\n", f"{legacy}\n{start}\n"
        self.head_lines, self.legacy_lines = self.head.count("\n"), self.legacy_head.count("\n")
        self.tail = "\n" + end
        self.signed = grammar.signature_parts()[0]
        self.signature = grammar.terminal("_SIGNATURE").match
        self.empty = grammar.literal("EMPTY_TRANSCRIPT") + "\n"
        self.findall, self.first = usual_pattern().findall, usual_pattern().match
        self.known = dict(SHARED_ROLES)  # each known role, as the str every item shares
        self.plain = grammar.terminal("PLAIN_LINE", "legacy").fullmatch
        self.bare = grammar.terminal("BARE_LINE", "legacy").fullmatch
        self.named = grammar.terminal("LEGACY_NAMED", "legacy").fullmatch
        self.numbered = grammar.terminal("RECORD_NUMBER", "legacy").match
        self.scan = strict_scanner()
        self.raw_break = raw_break_finder()
        self.max_depth, self.max_records = max_depth, max_records
        self.deep = 2 * max_depth + 1  # JSON this long may nest deeper than max_depth
        self.quoted = f"\n{start}\n"  # a summary quoted in content starts with such a line

    def read(self, text: str, strict: bool, notes: Recoveries | None) -> Read | None:
        """``(items, forms)`` of ``text``, or None to leave it to the steps.

        ``notes`` is where a report's recoveries go (``decode``); None reads the
        items alone (``loads``), and then the forms given are only those that
        cost nothing to note.
        """
        body = self.body(text, strict, notes)
        if body is None:
            return None
        pos, stop, line = body
        if pos == stop:
            return [], 0  # the empty transcript
        if text.find("\n", pos, stop - 1) < 0:  # one line, one record: the usual handoff
            one = self.one_record(text, pos, stop, strict)
            if one is not None:
                return one
        if not strict and text.find(self.quoted, pos - 1, stop) >= 0:
            return None  # a summary quoted in content: its lines are content
        if strict and self.raw_break(text, pos, stop) is not None:
            return None  # a line break or NUL in a record: the steps refuse it where it is
        return _Body(self, text, pos, line, strict, notes).read(stop)

    def body(self, text: str, strict: bool,
             notes: Recoveries | None) -> tuple[int, int, int] | None:
        """``(begin, stop, line)`` of the body (``begin == stop`` for the empty transcript;
        ``line`` is the number of its first line), or None to leave the text to the steps."""
        if not text.endswith(self.tail):
            return None
        if text.startswith(self.head):
            pos, line = len(self.head), self.head_lines + 1
        elif not strict and text.startswith(self.legacy_head):
            pos, line = len(self.legacy_head), self.legacy_lines + 1
            if notes is not None:
                notes.add(1, Code.LEGACY_PREAMBLE)
        else:
            return None
        stop = len(text) - len(self.tail) + 1  # just after the line break before the end
        if stop <= pos:
            return None
        if text[pos] == "(":  # a signature line, or the empty transcript
            if text.startswith(self.signed, pos):
                match = self.signature(text, pos)
                if match is not None:
                    pos, line = match.end(), line + 1
                    if stop <= pos:
                        return None
            if text.startswith(self.empty, pos):
                return (stop, stop, line) if stop == pos + len(self.empty) else None
        return pos, stop, line

    def one_record(self, text: str, pos: int, stop: int, strict: bool) -> Read | None:
        """The one record of a body of one line (``text[pos:stop]``), when it is a
        current-format record numbered 1 (strictly, with no line break or NUL in it)."""
        match = self.first(text, pos, stop)
        if match is None or match[1] != "1" or (
                strict and not match[3].isprintable() and self.raw_break(text, pos, stop)):
            return None
        if match[2]:  # KNOWN_LINE
            content = match[3]
            return [{"role": self.known[match[2]], "content": content}], (
                0 if content else Form.EMPTY_TURN)
        record = self.json(match[3], 0)  # JSON_LINE
        return None if record is None else ([record[0]], record[1])

    def json(self, rest: str, forms: int) -> tuple[Item, int] | None:
        """A ``JSON_LINE``'s object and the forms it gives, or none once ``forms`` (those
        found so far) hold Python's separators (no other form of a JSON record then rules
        out a writer more); None leaves the text to the steps."""
        max_depth = self.max_depth
        if len(rest) > self.deep and rest.count("{") + rest.count("[") > max_depth \
                and depth_exceeded_at(rest, max_depth) is not None:
            return None
        try:
            value, at = self.scan(rest, 0)
        except (StopIteration, ValueError, RecursionError):
            return None
        if at != len(rest) or type(value) is not dict:
            return None
        return value, 0 if forms & Form.SPACED_JSON else json_forms(value, rest)


class _Offsets:
    """The offset of body line ``index`` (0-based), worked out forward from the last one
    asked for: notes that quote the text ask in line order, so a body costs one walk."""

    __slots__ = ("find", "index", "pos")

    def __init__(self, text: str, begin: int) -> None:
        self.find, self.index, self.pos = text.find, 0, begin

    def __call__(self, index: int) -> int:
        while self.index < index:
            self.pos = self.find("\n", self.pos) + 1
            self.index += 1
        return self.pos


class _Body:
    """The reading of one body: its items so far, the evidence and what was spilled."""

    __slots__ = (
        "against",
        "begin",
        "continued",
        "count",
        "custom",
        "cuts",
        "empties",
        "engine",
        "forms",
        "guarded",
        "items",
        "line",
        "lists",
        "named_at",
        "notes",
        "offsets",
        "opening",
        "prefix",
        "rigid",
        "run_count",
        "run_lines",
        "run_note",
        "spilling",
        "strict",
        "text",
        "texts",
        "tools",
        "unwritten",
    )

    def __init__(self, engine: FastEngine, text: str, begin: int, line: int, strict: bool,
                 notes: Recoveries | None) -> None:
        self.engine, self.text, self.begin, self.line = engine, text, begin, line
        self.strict, self.notes = strict, notes
        self.items: list[Item] = []
        self.forms = 0
        self.count = 0  # records read
        self.texts = 0  # lines read that are not numbered (line - 1 + count + texts: the line)
        self.rigid = 0  # the last record whose content cannot go on below it (JSON, bare, typed)
        # Content spilled over lines: the records continued (by count); of the last, its
        # note's index among the recoveries, its lines so far, their count.
        self.continued: list[int] = []
        self.run_lines: list[str] = []
        self.run_note, self.run_count = -1, 0
        self.empties: list[int] = []  # the `N. role: ` records (by count)
        self.lists: list[int] = []  # the messages whose content opens with "[" (by index)
        self.opening: list[int] = []  # the `N. role (name): ` records (by count)
        self.offsets: _Offsets | None = None  # made for the first note that quotes the text
        # Records a raw writer's content may have spilled into (see .authority): the items
        # (by index) that must not gain authority, the tool items, paired at the end if
        # one is guarded, and whether a record has a role no raw writer writes.
        self.guarded: list[int] = []
        self.tools: list[int] = []  # JSON and typed records
        # Where no output answers a call before it (a record content may spill from came
        # between: authority.lowered), as the number of tools read before each such place.
        self.cuts: list[int] = []
        self.custom = False
        # The forms read right after a record content may spill from (JSON, TYPED): a
        # raw writer left must write them, else such a line is its content.
        self.unwritten, self.spilling = 0, False
        # Whether every record so far is a record whatever the writer (none content could
        # spill from came before it), and the forms they show (evidence.py, _AGAINST_RAW).
        self.prefix, self.against = True, 0
        # The last bare record with a name (by count): a record right below it that holds
        # no spilled content of its own is left to the steps (its name may go on below).
        self.named_at = 0

    def read(self, stop: int) -> Read | None:
        """The items and forms of the body up to ``stop``, chunk by chunk."""
        text, engine, pos = self.text, self.engine, self.begin
        while pos < stop:
            cut = stop if stop - pos <= _CHUNK else text.find("\n", pos + _CHUNK, stop) + 1 or stop
            lines = engine.findall(text, pos, cut)
            if self.count + len(lines) > engine.max_records:
                return None  # the steps check the limit, and say so
            if not self.lines(lines):
                return None
            pos = cut
            if len(self.run_lines) > 1:  # a million short spilled lines: not a million entries
                self.run_lines[:] = ["\n".join(self.run_lines)]
        return self.finish()

    def lines(self, lines: list[tuple[str, str, str]]) -> bool:
        """Read ``lines`` (``(number, role, rest)`` of :func:`~.lines.usual_pattern`): each
        ``KNOWN_LINE`` and ``JSON_LINE`` here, any other by :meth:`other`; False to give up.

        What the usual lines change is held in locals, stored back around
        :meth:`other`: a method call or attribute per record costs a tenth of a read."""
        numbers, count, known, strict = _NUMBERS, self.count, self.engine.known, self.strict
        if count + len(lines) + 1 >= len(numbers):
            numbers.extend(map(str, range(len(numbers), count + len(lines) + 2)))
        append, guarded, tools, ranked = self.items.append, self.guarded, self.tools, RANKS
        scan, prefix, forms, rigid = self.engine.json, self.prefix, self.forms, self.rigid
        for number, role, rest in lines:
            if role:  # KNOWN_LINE: the usual record (its item built as vocabulary.message)
                count += 1
                if number != numbers[count]:
                    return False
                if role in ranked and not prefix and not strict:
                    guarded.append(count - 1)
                append({"role": known[role], "content": rest})
                if not rest:
                    self.empties.append(count)
                prefix = False
            elif number:  # JSON_LINE: its object, and the forms it shows
                count += 1
                if number != numbers[count]:
                    return False
                record = scan(rest, self.against if prefix else forms)
                if record is None or (self.named_at and self.named_at == count - 1):
                    return False
                if not strict:
                    if rigid != count - 1:  # the record above may hold spilled content
                        self.unwritten |= Form.JSON | (Form.SPACED_JSON if spaced(rest) else 0)
                        self.cuts.append(len(tools))  # (no call above pairs with an output)
                    tools.append(count - 1)
                    if not prefix and may_rise(record[0]):
                        guarded.append(count - 1)
                append(record[0])
                forms |= record[1]
                if prefix:
                    self.against |= record[1]
                rigid = count  # a line below it belongs to no record
            else:  # any other line, whole
                self.count, self.prefix, self.forms, self.rigid = count, prefix, forms, rigid
                if not self.other(rest):
                    return False
                count, prefix, forms, rigid = self.count, self.prefix, self.forms, self.rigid
        self.count, self.prefix, self.forms, self.rigid = count, prefix, forms, rigid
        return True

    def other(self, line: str) -> bool:
        """A line that is no ``KNOWN_LINE`` or ``JSON_LINE``: a ``PLAIN_LINE`` or
        ``BARE_LINE`` record, or content spilled from the record above (``TEXT_LINE``);
        False to give up."""
        engine, strict = self.engine, self.strict
        if not line[:1].isdigit():  # no number: a TEXT_LINE (the terminals' numbers are [0-9])
            if strict or self.rigid == self.count:
                return False  # below a record without spilled content
            self.spilled(line)
            return True
        if ":" in line and (fields := engine.plain(line + "\n")) is not None:
            if fields["plain_n"] != _NUMBERS[self.count + 1]:
                return False
            return self.plain(line, *fields.group("plain_role", "plain_name", "plain_content"))
        if not strict and (fields := engine.bare(line + "\n")) is not None:
            if fields["bare_n"] != _NUMBERS[self.count + 1]:
                return False
            return self.bare_role(*fields.group("bare_role", "bare_name"))
        if strict or self.rigid == self.count or engine.numbered(line) is not None:
            return False  # numbered, or below a record without spilled content
        self.spilled(line)
        return True

    def record(self, role: str, is_bare: bool, content: str) -> int:
        """Count a `PLAIN_LINE` or `BARE_LINE` record of ``role``; its line number."""
        self.spilling = self.rigid != self.count  # the record above may hold spilled content
        if self.named_at and self.named_at == self.count and (is_bare or content[:1] == "{"):
            return -1  # a one-line record right below a bare one with a name: the steps
        self.count += 1
        index = self.line - 1 + self.count + self.texts
        if not self.prefix and (role.partition(" (")[0] in RISING or (
                not is_bare and content[:1] == "{")):
            self.guarded.append(self.count - 1)
        self.rigid = self.count  # a record without spilled content, but for a message below
        return index

    def bare_role(self, role: str, name: str | None) -> bool:
        """A ``BARE_LINE``: an empty turn of a known role (``bare_role``)."""
        index = self.record(role, True, "")
        if index < 0:
            return False
        if self.spilling or name:
            self.cuts.append(len(self.tools))
        if name:  # its name may go on below (written verbatim): records after it are guarded
            self.prefix = False
            self.named_at = self.count
        if self.notes is not None:
            self.notes.add(index, Code.BARE_ROLE)
        self.forms |= Form.BARE_ROLE
        self.items.append(message(role, "", name or None))
        return True

    def plain(self, line: str, role: str, name: str | None, content: str) -> bool:
        """A ``PLAIN_LINE`` (``line``): a named message, a role of no ``KNOWN_LINE``, or a
        typed record; False to give up."""
        index = self.record(role, False, content)
        if index < 0:
            return False
        strict, known = self.strict, self.engine.known
        if not role or (name == "" and not strict):  # an empty role or name: the steps
            return False
        if strict and not name and content[:1] == "{" and typed_word(role, Form.TYPED):
            return False  # a typed record (TYPED_HEAD), no PLAIN_RECORD: the parser refuses it
        if role not in known and not strict:
            if "(" in role:  # a known role with a name holding ":" or "(" (LEGACY_NAMED)?
                return self.named(line, role, name)
            if not name and content[:1] == "{" and typed_word(role, Form.TYPED):
                return self.typed(role, content, index)
            if role != "tool":
                self.custom = True
            elif name and ("): " in content or content.rstrip(" \t")[-1:] == ")"):
                return False  # two readings of the name: the steps report them
            elif not content and not strict:
                self.opening.append(self.count)  # `N. tool: `: content may start below
        elif name and role in known:
            self.forms |= Form.NAMED
            if self.prefix:
                self.against |= Form.NAMED
            if "): " in content or (not strict and content.rstrip(" \t")[-1:] == ")"):
                return False  # (`user (a): b)` is also an empty turn named "a): b")
            if not content and not strict:
                self.opening.append(self.count)
        if content[:1] == "[" and not strict:
            self.lists.append(len(self.items))  # may be a list: checked once read whole
        self.items.append(message(role, content, name or None))
        self.rigid = 0
        self.prefix = False
        return True

    def named(self, line: str, role: str, name: str | None) -> bool:
        """`N. user (team:alice): q`: a role every writer writes, with a name that holds
        ":" or "(" (``LEGACY_NAMED``), read as the steps read it; False to give up."""
        if name and role.count("(") == role.count(")"):
            return False  # `assistant (bot) (0)`: role "assistant (bot)" named "0"? The steps
        named = self.engine.named(line)
        if named is None or not named["name"] or "): " in named["content"] \
                or "): " in named["name"] \
                or named["content"].rstrip(" \t")[-1:] == ")" or not named["content"]:
            return False  # no such name, or two readings of it: the steps report them
        role, name, content = named.group("role", "name", "content")
        if content[:1] == "[":
            self.lists.append(len(self.items))  # may be a list: checked once read whole
        self.items.append(message(role, content, name))
        self.rigid = 0
        self.prefix = False
        return True

    def typed(self, role: str, content: str, index: int) -> bool:
        """A typed record `type: {json}` of 0.6 (``typed_record``); False to give up."""
        value = whole_object(content, self.engine.max_depth)
        if value is None:
            return False
        if self.notes is not None:
            if self.offsets is None:
                self.offsets = _Offsets(self.text, self.begin)
            self.notes.add(index, Code.TYPED_RECORD,
                           self.offsets(index - self.line) + len(str(self.count)) + 2, len(role))
        if role != UNTYPED:
            value["type"] = role
        if self.spilling:
            self.unwritten |= Form.TYPED
            self.cuts.append(len(self.tools))
        self.tools.append(self.count - 1)
        self.items.append(value)
        self.forms |= Form.TYPED
        return True

    def spilled(self, line: str) -> None:
        """A ``TEXT_LINE``: content spilled from the record above (``continuation``)."""
        self.texts += 1
        continued = self.continued
        if not continued or continued[-1] != self.count:  # the first line below it
            self.join()
            above = self.line - 2 + self.count + self.texts  # the record's line
            self.run_note = self.notes.add(above, Code.CONTINUATION) \
                if self.notes is not None else -1
            continued.append(self.count)
            self.run_lines, self.run_count = [], 0
        self.run_lines.append(line)
        self.run_count += 1

    def join(self) -> None:
        """Join the lines of the last run of spilled content to the record they continue,
        and count them in its ``continuation`` note."""
        if self.run_count:
            self.items[self.continued[-1] - 1]["content"] += "\n" + "\n".join(self.run_lines)
            if self.notes is not None:
                self.notes.update(self.run_note, self.run_count)

    def lowered(self) -> bool:
        """Whether a guarded record would gain authority (``authority.lowered``)."""
        tools = self.tools
        cut = {tools[at] for at in self.cuts if at < len(tools)}
        return bool(lowered(self.items, self.guarded, tools, cut))

    def finish(self) -> Read | None:
        """The items and forms, or None when a record a raw writer may have written as
        content would gain authority (the steps read it: ``authority.py``)."""
        if self.run_count:
            self.join()
        if self.lists and any(content_parts(self.items[index]["content"]) is not None
                              for index in self.lists):
            return None  # content that may be a list (spilled lines too): the steps say so
        forms = self.forms
        if self.continued:
            forms |= Form.SPILLED
        opened = False  # whether a record is below `N. role: `
        if self.empties or self.opening:
            alone = set(self.empties + self.opening) - set(self.continued)
            if alone & set(self.empties):
                forms |= Form.EMPTY_TURN
            opened = any(record < self.count for record in alone)
        if self.strict or not (self.custom or self.guarded or self.unwritten or opened):
            return self.items, forms
        # Only the records up to the first that content may spill from are records whatever
        # the writer: only they may rule out a raw writer (evidence.py, _AGAINST_RAW).
        writers = candidates(self.against | (forms & _AGAINST_ANYWHERE))
        if raw_possible(writers) and (self.custom or self.unwritten & ~writes_of(writers) or (
                self.guarded and self.lowered()) or (
                opened and (not any(writer.escapes_line_breaks for writer in writers) or (
                    self.notes is not None and self.notes.any_lost())))):
            # A line a raw writer may have written as content: the steps read it (and
            # offer that reading of a line below `N. role: ` when the reading is flagged).
            return None
        return self.items, forms

