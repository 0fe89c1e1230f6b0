"""The fast engine's one pass: a summary whose records are numbered 1, 2, 3, ... in order.

When every numbered line is a record in sequence, the numbering leaves
nothing to decide (``evidence.py``, rule 2): the records can be read as the
lines come, and the evidence taken from them as they are read. That is the
usual summary, legacy ones included, and this pass reads it in one loop over
one ``findall`` of the usual lines (:func:`~.lines.usual_pattern`), every
other line read by its own terminal of ``grammar/legacy.lark``:

* ``KNOWN_LINE``, ``JSON_LINE`` and ``PLAIN_LINE``: the current format;
* ``BARE_LINE``: an empty turn (``bare_role``);
* ``TEXT_LINE``: content of the `role: content` record above it, spilled
  (``continuation``);
* a ``PLAIN_LINE`` whose word is an ``ITEM_TYPE``, before a JSON object: an
  item of that type (``typed_record``).

It gives up (None) on anything else, for the steps of ``reader.py`` to read:
another envelope, a number out of sequence, a ``NUMBERED_LINE``, a line below
a record that holds no spilled content, a summary quoted in the body (its
lines are content whatever their numbers), a name that may hold ":" or "(", a
JSON record that is not a whole RFC 8259 object within ``max_depth``, more
than ``max_records`` records; with a report, content that may be a list.
Strictly, only the current format (no line break but "\n" and no NUL in the
body). The Lark reference always takes the steps, and tests check on
arbitrary text that both engines agree.
"""

from __future__ import annotations

from .. import grammar
from ..limits import depth_exceeded_at
from .authority import RANKS, RISING, lowered, may_rise
from .evidence import UNTYPED, json_signs, typed_word
from .generations import Sign, candidates, raw_possible
from .json_record import strict_scanner, whole_object
from .lines import usual_pattern
from .notes import Code
from .raw_breaks import raw_break_finder
from .records import content_parts
from .vocabulary import SHARED_ROLES

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..report import Recoveries

    # The items, and the Sign flags of the records read.
    Pass = Callable[[str, bool, "Recoveries | None"], "tuple[list[Item], int] | None"]

__all__ = ["one_pass"]

Item = dict[str, "Any"]

# How many characters of whole lines one findall reads: its list of lines stays
# small (a few hundred), which a long transcript reads faster.
_CHUNK = 16_384
# Each record number as text, to compare with: grown to the longest body read
# (at most ``max_records`` strings).
_NUMBERS = ["0"]


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


def _join(item: Item, lines: list[str], count: int, notes: Recoveries | None,
          note: int) -> None:
    """Join the ``count`` lines that continue ``item``'s content (some joined already) to
    it, and count them in its ``continuation`` note."""
    item["content"] += "\n" + "\n".join(lines)
    if notes is not None:
        notes.update(note, count)


def one_pass(preamble: str, legacy: str, start: str, end: str, max_depth: int,
             max_records: int) -> Pass:
    """The one pass for one codec: ``read(text, strict, recoveries)``.

    ``recoveries`` is where a report's notes go (``decode``); None reads the
    items alone (``loads``), and then the signs given are only those that
    cost nothing to note. Gives ``(items, signs)``, or None to leave the text
    to the steps.
    """
    head, legacy_head, tail = f"{preamble}\n{start}\n", f"{legacy}\n{start}\n", "\n" + end
    head_length, head_lines, legacy_lines = len(head), head.count("\n"), legacy_head.count("\n")
    signed, _ = grammar.signature_parts()
    signature = grammar.terminal("_SIGNATURE").match
    no_records = grammar.literal("EMPTY_TRANSCRIPT") + "\n"
    findall, first = usual_pattern().findall, usual_pattern().match
    plain = grammar.terminal("PLAIN_LINE", "legacy").fullmatch
    bare = grammar.terminal("BARE_LINE", "legacy").fullmatch
    numbered = grammar.terminal("RECORD_NUMBER", "legacy").match
    scan = strict_scanner()
    raw_break = raw_break_finder()
    roles = dict(SHARED_ROLES)
    shared = roles.get
    deep = 2 * max_depth + 1  # JSON this long may nest deeper than max_depth
    chunk, numbers = _CHUNK, _NUMBERS
    tail_length, empty_length = len(tail) - 1, len(no_records)
    quoted = f"\n{start}\n"  # a summary quoted in content starts with such a line
    ranked = frozenset(RANKS)  # the roles a line must not gain unproven

    def json_line(rest: str, signs: int) -> tuple[Item, int] | None:
        """A ``JSON_LINE``'s object and the signs it gives, or none once ``signs`` (those
        found so far) hold Python's separators (no other sign of a JSON record then rules
        out a writer more); None leaves the text to the steps."""
        if len(rest) > deep and rest.count("{") + rest.count("[") > max_depth \
                and depth_exceeded_at(rest, max_depth) is not None:
            return None
        try:
            value, at = scan(rest, 0)
        except (StopIteration, ValueError, RecursionError):
            return None
        if at != len(rest) or type(value) is not dict:
            return None
        return value, 0 if signs & Sign.SPACED_JSON else json_signs(value, rest)

    def read(text: str, strict: bool, notes: Recoveries | None) -> tuple[list[Item], int] | None:
        if not text.endswith(tail):
            return None
        if text.startswith(head):
            pos, line = head_length, head_lines + 1  # line: the number of the body's first line
        elif not strict and text.startswith(legacy_head):
            pos, line = len(legacy_head), legacy_lines + 1
            if notes is not None:
                notes.add(1, Code.LEGACY_PREAMBLE)
        else:
            return None
        stop = len(text) - tail_length  # just after the line break before the end marker
        if stop <= pos:
            return None
        if text[pos] == "(":  # a signature line, or the empty transcript
            if text.startswith(signed, pos):
                match = signature(text, pos)
                if match is not None:
                    pos, line = match.end(), line + 1
                    if stop <= pos:
                        return None
            if text.startswith(no_records, pos):
                return ([], 0) if stop == pos + empty_length else None
        if text.find("\n", pos, stop - 1) < 0:  # one line, one record: the usual handoff
            match = first(text, pos, stop)
            # (Strictly, no line break or NUL in it: printable text holds none.)
            if match is not None and match[1] == "1" and (
                    not strict or match[3].isprintable() or raw_break(text, pos, stop) is None):
                if match[2]:  # KNOWN_LINE
                    content = match[3]
                    return [{"role": roles[match[2]], "content": content}], (
                        0 if content else Sign.EMPTY_TURN)
                record = json_line(match[3], 0)  # JSON_LINE
                if record is not None:
                    return [record[0]], record[1]
        if not strict and text.find(quoted, pos - 1, stop) >= 0:
            return None
        if strict and raw_break(text, pos, stop) is not None:
            return None  # a line break or NUL in a record: the steps refuse it where it is
        begin = pos
        items: list[Item] = []
        append = items.append
        signs = 0
        count = 0  # records read
        texts = 0  # lines read that are not numbered (line - 1 + count + texts: the line read)
        rigid = 0  # the last record whose content cannot go on below it (JSON, bare, typed)
        # Content spilled over lines: the records continued (by count); of the last, its
        # note's index among the recoveries, its lines so far (joined after each findall,
        # so that a million short lines do not cost a million list entries), their count.
        continued: list[int] = []
        run_lines: list[str] = []
        run_note, run_count = -1, 0
        empties: list[int] = []  # the `N. role: ` records (by count), alone unless continued
        offsets: _Offsets | None = None  # made for the first note that quotes the text
        # Records a raw writer's content may have spilled into (see .authority): the
        # items (by index) that must not gain authority, and whether a record has a role
        # no writer writes (content under a raw writer).
        guarded: list[int] = []
        tools: list[int] = []  # the items that may be tool items: all but KNOWN_LINE's
        custom = False
        # Whether every record so far is a record whatever the writer (none content could
        # spill from came before it), the signs they show, and the first that may spill.
        prefix, against = True, 0
        while pos < stop:
            cut = stop if stop - pos <= chunk else text.find("\n", pos + chunk, stop) + 1 or stop
            found = findall(text, pos, cut)
            if count + len(found) >= len(numbers):
                if count + len(found) > max_records:
                    return None  # the steps check the limit, and say so
                numbers.extend(map(str, range(len(numbers), count + len(found) + 1)))
            elif count + len(found) > max_records:
                return None
            for number, role, rest in found:
                if role:  # KNOWN_LINE: the usual record
                    count += 1
                    if number != numbers[count]:
                        return None
                    if role in ranked and not prefix and not strict:
                        guarded.append(count - 1)
                    append({"role": role, "content": rest})
                    if not rest:
                        empties.append(count)
                    prefix = False
                    continue
                if number:  # JSON_LINE
                    count += 1
                    if number != numbers[count]:
                        return None
                    record = json_line(rest, against if prefix else signs)
                    if record is None:
                        return None
                    if not strict:
                        if not prefix and may_rise(record[0]):
                            guarded.append(count - 1)
                        tools.append(count - 1)
                    append(record[0])
                    signs |= record[1]
                    if prefix:
                        against |= record[1]
                    rigid = count  # a line below it belongs to no record
                    continue
                # Any other line: PLAIN_LINE, BARE_LINE or TEXT_LINE (else no record here).
                fields = plain(rest + "\n")
                if fields is not None:
                    number, role, name, content = fields.group(
                        "plain_n", "plain_role", "plain_name", "plain_content")
                    is_bare = False
                elif not strict and (fields := bare(rest + "\n")) is not None:
                    number, role, name = fields.group("bare_n", "bare_role", "bare_name")
                    is_bare = True
                elif strict or rigid == count or numbered(rest) is not None:
                    return None  # numbered, or below a record without spilled content
                else:  # TEXT_LINE: content spilled from the record above
                    texts += 1
                    if not continued or continued[-1] != count:  # the first line below it
                        if run_count:
                            _join(items[continued[-1] - 1], run_lines, run_count, notes, run_note)
                        above = line - 2 + count + texts  # the record's line
                        run_note = notes.add(above, Code.CONTINUATION) if notes is not None \
                            else -1
                        continued.append(count)
                        run_lines, run_count = [], 0
                    run_lines.append(rest)
                    run_count += 1
                    continue
                count += 1
                if number != numbers[count]:
                    return None
                index = line - 1 + count + texts  # the line number of this record
                tools.append(count - 1)
                if not prefix and (role.partition(" (")[0] in RISING or (
                        not is_bare and content[:1] == "{")):
                    guarded.append(count - 1)
                rigid = count  # a record without spilled content, but for a message below
                if is_bare:  # BARE_LINE
                    if notes is not None:
                        notes.add(index, Code.BARE_ROLE)
                    signs |= Sign.BARE_ROLE
                    role = roles[role]
                    append({"role": role, "content": ""} if not name
                           else {"role": role, "name": name, "content": ""})
                    continue
                if not role:  # an empty role: the steps read it
                    return None
                if role not in roles and not strict:
                    if "(" in role:  # maybe a known role with a name holding ":" or "("
                        return None
                    if not name and content[:1] == "{" and typed_word(role, Sign.TYPED):
                        value = whole_object(content, max_depth)
                        if value is None:
                            return None
                        if notes is not None:
                            if offsets is None:
                                offsets = _Offsets(text, begin)
                            notes.add(index, Code.TYPED_RECORD,
                                      offsets(index - line) + len(number) + 2, len(role))
                        if role != UNTYPED:
                            value["type"] = role
                        append(value)
                        signs |= Sign.TYPED
                        continue
                    if role != "tool":
                        custom = True
                    elif name and "): " in content:
                        return None  # two readings of the name: the steps report them
                elif name and role in roles:
                    signs |= Sign.NAMED
                    if prefix:
                        against |= Sign.NAMED
                    if "): " in content:  # two readings of the name: the steps report them
                        return None
                if content[:1] == "[" and not strict and notes is not None \
                        and content_parts(content) is not None:
                    return None  # may be a list: the steps report it
                role = shared(role, role)
                append({"role": role, "content": content} if not name
                       else {"role": role, "name": name, "content": content})
                rigid = 0
                prefix = False
            pos = cut
            if len(run_lines) > 1:
                run_lines[:] = ["\n".join(run_lines)]
        if continued:
            _join(items[continued[-1] - 1], run_lines, run_count, notes, run_note)
            signs |= Sign.SPILLED
        if empties and set(empties) - set(continued):
            signs |= Sign.EMPTY_TURN
        # Only the records up to the first that content may spill from are records whatever
        # the writer: only they may rule out a raw writer (evidence.py, _AGAINST_RAW).
        against |= signs & (Sign.SPILLED | Sign.BARE_ROLE | Sign.TYPED)
        if (custom or guarded) and not strict and raw_possible(candidates(against)) and (
                custom or lowered(items, guarded, tools)):
            return None  # a line a raw writer may have written as content: the steps read it
        return items, signs

    return read
