"""Body lines: each line of a summary's body, of the one kind ``grammar/legacy.lark`` gives it.

The grammar's line terminals (``KNOWN_LINE``, ``JSON_LINE``, ``PLAIN_LINE``,
``BARE_LINE``, ``NUMBERED_LINE``, ``TEXT_LINE``, in that order) are joined
here into one pattern, their common number matched once, so that one
``findall`` gives every line of a body as a tuple of 11 fields (the fast
tokenizer). The Lark reference (``reference.py``) gives the same tuples from
the LALR parser's tokens; tests check that both agree.
"""

from __future__ import annotations

import functools
import re

from .. import grammar

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "BARE",
    "BARE_NAME",
    "BARE_ROLE",
    "FIELDS",
    "JSON",
    "JSON_OBJECT",
    "KINDS",
    "KNOWN",
    "KNOWN_CONTENT",
    "KNOWN_ROLE",
    "NUMBER",
    "NUMBERED",
    "NUMBERED_REST",
    "PLAIN",
    "PLAIN_CONTENT",
    "PLAIN_NAME",
    "PLAIN_ROLE",
    "TEXT",
    "TEXT_WHOLE",
    "Line",
    "kind",
    "line_at",
    "line_pattern",
    "number",
]

# A line: (number, known_role, known_content, json, plain_role, plain_name,
# plain_content, bare_role, bare_name, other, text); "" for a field its kind
# does not have (as findall gives it).
Line = tuple[str, str, str, str, str, str, str, str, str, str, str]
FIELDS = ("number", "known_role", "known_content", "json", "plain_role", "plain_name",
          "plain_content", "bare_role", "bare_name", "other", "text")
# Each field's index in a Line, by name.
(NUMBER, KNOWN_ROLE, KNOWN_CONTENT, JSON_OBJECT, PLAIN_ROLE, PLAIN_NAME, PLAIN_CONTENT,
 BARE_ROLE, BARE_NAME, NUMBERED_REST, TEXT_WHOLE) = range(len(FIELDS))

# The kinds, in the grammar's order of priority.
KINDS = ("KNOWN_LINE", "JSON_LINE", "PLAIN_LINE", "BARE_LINE", "NUMBERED_LINE", "TEXT_LINE")
KNOWN, JSON, PLAIN, BARE, NUMBERED, TEXT = range(6)

_NUMBERED_PREFIX = {"KNOWN_LINE": "known", "JSON_LINE": "json", "PLAIN_LINE": "plain",
                    "BARE_LINE": "bare"}


def kind(line: Line) -> int:
    """The kind of ``line`` (one of ``KNOWN`` ... ``TEXT``).

    Every kind but ``TEXT`` has a number; ``KNOWN``, ``JSON`` and ``BARE`` a
    role or object that is never empty, ``NUMBERED`` its "."; a numbered line
    that is none of those is ``PLAIN``.
    """
    if not line[NUMBER]:
        return TEXT
    if line[KNOWN_ROLE]:
        return KNOWN
    if line[JSON_OBJECT]:
        return JSON
    if line[BARE_ROLE]:
        return BARE
    if line[NUMBERED_REST]:
        return NUMBERED
    return PLAIN


def number(digits: str) -> int:
    """A record's number; 0 (never in sequence) for one too long for a 64-bit int."""
    return int(digits) if len(digits) <= 18 else 0


@functools.cache
def line_pattern() -> re.Pattern[str]:
    """The grammar's line terminals as one pattern: ``findall`` gives :data:`Line` tuples.

    ``(?:([0-9]+)(?:\\. (?:KNOWN|JSON|PLAIN|BARE)|NUMBERED)|TEXT)``, each
    numbered terminal after its own number (checked to be ``[0-9]+``, then
    ". " but for ``NUMBERED_LINE``, whose "." is in its group).
    """
    parts = []
    for name, prefix in _NUMBERED_PREFIX.items():
        pattern = grammar.pattern(name, "legacy")
        head = f"(?P<{prefix}_n>[0-9]+)\\. "
        if not pattern.startswith(head):
            raise AssertionError(f"{name} {pattern!r} does not start with {head!r}")
        parts.append(pattern[len(head):])
    numbered = grammar.pattern("NUMBERED_LINE", "legacy")
    head = "(?P<other_n>[0-9]+)"
    if not numbered.startswith(head + "(?P<other>\\."):
        raise AssertionError(f"NUMBERED_LINE {numbered!r} does not start with {head!r} and '.'")
    text = grammar.pattern("TEXT_LINE", "legacy")
    compiled = re.compile(
        f"(?:([0-9]+)(?:\\. (?:{'|'.join(parts)})|{numbered[len(head):]})|{text})")
    order = tuple(sorted(compiled.groupindex, key=compiled.groupindex.__getitem__))
    if compiled.groups != len(FIELDS) or order != FIELDS[1:]:
        raise AssertionError(f"line groups {order} are not {FIELDS[1:]}")
    return compiled


@functools.cache
def usual_pattern() -> re.Pattern[str]:
    """The usual lines, for the one pass: ``KNOWN_LINE``, ``JSON_LINE``, or any line.

    ``findall`` gives ``(number, role, rest)``: for a ``KNOWN_LINE`` its
    number, role and content; for a ``JSON_LINE`` its number, ``""`` and the
    JSON; for any other line ``""``, ``""`` and the whole line. The two
    terminals end alike (the rest of the line, then "\\n"), which the pattern
    matches once.
    """
    known = grammar.pattern("KNOWN_LINE", "legacy")
    json = grammar.pattern("JSON_LINE", "legacy")
    # (The patterns hold the line break itself, as Lark writes them.)
    head, tail = "(?P<known_n>[0-9]+)\\. ", "(?P<known_content>[^\n]*)\n"
    if not (known.startswith(head) and known.endswith(tail)) or \
            json != "(?P<json_n>[0-9]+)\\. (?P<json>\\{[^\n]*)\n":
        raise AssertionError(f"KNOWN_LINE {known!r} or JSON_LINE {json!r} changed shape")
    role = known[len(head):-len(tail)]  # the role, ":" and an optional space
    return re.compile(f"(?:([0-9]+)\\. (?:{role}|(?=\\{{))|)([^\n]*)\n")


@functools.cache
def _match() -> Callable[[str, int], re.Match[str] | None]:
    return line_pattern().match


def line_at(text: str, start: int) -> Line:
    """The line of ``text`` that starts at ``start`` (a body line: it ends with "\\n")."""
    match = _match()(text, start)
    assert match is not None  # TEXT_LINE matches any line
    return match.groups("")  # type: ignore[return-value]
