"""Every recovery the reader notes: its code, kind, loss and message, in one table."""

from __future__ import annotations

from ..report import Note, RecoveryKind
from .authority import Why

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from typing import Final

__all__ = ["NOTES", "Code"]

_NO_EVIDENCE = ("nothing in the summary rules out a writer that wrote content raw "
                "(openai-agents 0.6 to 0.17.0, or a port of it)")


def _number_at(text: str, pos: int) -> str:
    number = text[pos:text.index(".", pos)]
    return number if len(number) <= 20 else number[:20] + "..."


def _line_at(text: str, pos: int, length: int) -> str:
    return repr(text[pos:pos + length])


def _quoted(text: str, pos: int, length: int) -> str:
    return f"a line that belongs to no record; not read as a turn: {_line_at(text, pos, length)}"


def _continued(_text: str, count: int, _unused: int) -> str:
    return f"the record continues on the next {count} line(s); joined with '\\n'"


def _typed(text: str, pos: int, length: int) -> str:
    word = text[pos:pos + length]
    return f"'{word}: {{...}}' read as an item of type {word!r} (no message has that role)"


def _renumbered(text: str, pos: int, expected: int) -> str:
    number = _number_at(text, pos)
    gone = (f"; {int(number) - expected} record(s) before it are gone"
            if number.isdigit() and len(number) <= 18 and int(number) > expected else "")
    return (f"a record numbered {number} where {expected} was expected; read as a record of "
            f"its own: the summary was edited{gone}")


def _ambiguous_content(text: str, pos: int, length: int) -> str:
    return (f"a line numbered out of sequence, read as content of the record above: "
            f"{_line_at(text, pos, length)}; {_NO_EVIDENCE}, but an edited summary would make "
            "it a record of its own (see candidates)")


def _ambiguous_list(text: str, pos: int, length: int) -> str:
    return (f"content that is a JSON array of content parts, kept as the text: "
            f"{_line_at(text, pos, length)}; openai-agents 0.6 to 0.17.0 wrote list content "
            "the same way, so it may have been a list (see candidates)")


# Why.WORDS, and why a record is content because a line below it is (evidence.FORGED).
_WHY = (*Why.WORDS, "a record: a line below it is read as content, so this one is too")


def _lowered(text: str, pos: int, why: int) -> str:
    end = text.find("\n", pos, pos + 60)
    return (f"a line read as content of the record above, not as {_WHY[why]}: "
            f"{_line_at(text, pos, 60 if end < 0 else end - pos)}; the writer may have written "
            "content raw (openai-agents 0.6 to 0.17.0), and text must not gain the authority "
            "of a turn (see candidates)")


def _typed_word(text: str, pos: int, length: int) -> str:
    word = text[pos:pos + length]
    return (f"'{word}: {{...}}' read as an item of type {word!r}, which is no item type the "
            f"Responses API has; openai-agents 0.6 to 0.17.0 wrote a message of role {word!r} "
            "with JSON text the same way (see candidates)")


def _not_item(text: str, pos: int, length: int) -> str:
    word = text[pos:pos + length]
    return (f"'{word}: {{...}}' is how openai-agents 0.6 to 0.17.0 wrote an item of type "
            f"{word!r}, but no JSON object follows: read as a message of role {word!r}")


def _two_names(text: str, pos: int, length: int) -> str:
    end = text.find("\n", pos)
    line = text[pos:end if end >= 0 else len(text)]
    return (f"a name read to the first '): ' of {line[:80]!r}; a name that holds '): ' "
            "(written verbatim by every openai-agents release) would end at a later one "
            "(see candidates)")


def _bare_name(text: str, pos: int, length: int) -> str:
    line = text[pos:pos + length]
    name = line[line.index(" (") + 2:line.rindex(")")]
    return (f"a name read to the first '): ' of {line[:80]!r}; the line is also what "
            f"openai-agents 0.6 to 0.19 wrote for an empty turn named {name[:60]!r} (a name is "
            "written verbatim; see candidates)")


def _quoted_summary(text: str, pos: int, length: int) -> str:
    return ("a start marker line with no preamble line before it, closed by an end marker "
            "line: the records between them are read as records of this summary, but they "
            "may have been a summary quoted in content (see candidates)")


def _cut_name(text: str, pos: int, length: int) -> str:
    return (f"a role or name no writer writes, {text[pos:pos + min(length, 60)]!r}: a name "
            "written verbatim (left open, empty, or holding a line break) read otherwise "
            "than the writer meant; the items may not be the written ones (see candidates)")


class Code:
    """What the reader notes: indexes into :data:`NOTES` (plain ints: an enum's are slower).

    The comment says what the two ints noted with each are. ``Final``: constants of the
    class, as mypyc compiles them (an attribute of each instance else).
    """

    LEGACY_PREAMBLE: Final = 0
    BARE_ROLE: Final = 1
    UNRECOGNISED: Final = 2  # the line's offset and length (at most 60)
    NON_STANDARD_JSON: Final = 3
    NOT_JSON: Final = 4
    CONTINUATION: Final = 5  # how many lines continue the record
    TYPED_RECORD: Final = 6  # the word's offset and length
    RENUMBERED: Final = 7  # the record's offset, and the number expected
    AMBIGUOUS_CONTENT: Final = 8  # the line's offset and length (at most 60)
    AMBIGUOUS_LIST: Final = 9  # the content's offset and length (at most 60)
    AMBIGUOUS_AUTHORITY: Final = 10  # the line's offset, and why (authority.Why)
    AMBIGUOUS_TYPED: Final = 11  # the word's offset and length
    AMBIGUOUS_NAME: Final = 12  # the role's offset and length
    AMBIGUOUS_QUOTED: Final = 13  # the start marker line's offset
    AMBIGUOUS_NOT_ITEM: Final = 14  # the word's offset and length
    AMBIGUOUS_BARE_NAME: Final = 15  # the role's offset, and the length of the rest of the line
    AMBIGUOUS_ROLE: Final = 16  # the role's offset and length


NOTES: tuple[Note, ...] = (
    Note(RecoveryKind.LEGACY_PREAMBLE, "the short legacy preamble"),
    Note(RecoveryKind.BARE_ROLE, "an empty turn written as a bare role; read with content ''. "
         "Whether it was None or '' is not in the text", lost=True),
    Note(RecoveryKind.UNRECOGNISED, _quoted, lost=True),
    Note(RecoveryKind.NON_STANDARD_JSON, "NaN or Infinity, which JSON (RFC 8259) does not "
         "allow; read as a float, as json.loads does"),
    Note(RecoveryKind.NOT_JSON, "starts with '{' but is not a JSON object; read as a plain "
         "record, as the Agents SDK does"),
    Note(RecoveryKind.CONTINUATION, _continued),
    Note(RecoveryKind.TYPED_RECORD, _typed),
    Note(RecoveryKind.RENUMBERED, _renumbered, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _ambiguous_content, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _ambiguous_list, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _lowered, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _typed_word, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _two_names, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _quoted_summary, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _not_item, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _bare_name, lost=True),
    Note(RecoveryKind.AMBIGUOUS, _cut_name, lost=True),
)
