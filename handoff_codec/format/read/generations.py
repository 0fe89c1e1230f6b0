"""Every known writer of the summary format, described once, as data.

A reader cannot ask who wrote a summary; it can only look at what the text
holds. Each writer generation writes some record forms (:class:`Form`) and
never others, so the forms a text holds rule writers out: the evidence. The
numbering rule asks one question of it (may a writer that wrote content raw,
so that a line of content can look like a record, have written this text?),
the content rule another (may a writer that wrote list content as a JSON
array after the colon have written it?), and ``decode`` names the writers left
and what they could not keep. docs/spec.md states the same in words;
conformance/writers.md cites each writer's source.
"""

from __future__ import annotations

import functools

from ..report import Format

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

__all__ = [
    "EMPTY_TURN_UNKEPT",
    "GENERATIONS",
    "Form",
    "Generation",
    "candidates",
    "describe",
    "label",
    "raw_possible",
    "writes_of",
]


class Form:
    """The record forms a text can show (bit flags: a set of them is an int)."""

    # Final: constants of the class, as mypyc compiles them (an attribute else).
    EMPTY_TURN: Final = 1  # `N. role: ` and nothing more, the next line a record of its own
    BARE_ROLE: Final = 2  # `N. role` or `N. role (name)`: an empty turn without ":"
    SPILLED: Final = 4  # a body line that is not numbered: content written raw
    TYPED: Final = 8  # `N. item_type: {json}`: an item without a role
    JSON: Final = 16  # `N. {json}`: the whole item as one JSON object
    ESCAPED_BREAK: Final = 32  # a JSON record of a message whose text holds "\n" or "\r"
    NAMED: Final = 64  # `N. role (name): content`
    SPACED_JSON: Final = 128  # a JSON record written with Python's separators (`{"key": `)

    ALL: Final = 255


class Generation:
    """One writer: what it is, the forms it writes, and what its text cannot hold.

    ``writes`` holds the :class:`Form` flags of every form it writes;
    ``escapes_line_breaks`` that it puts every record on one line (so that a
    numbered line is always a record); ``lists_after_colon`` that it wrote list
    content as a JSON array after ``role: ``; ``unkept`` what its text cannot
    hold, in words.
    """

    __slots__ = ("escapes_line_breaks", "format", "lists_after_colon", "name", "unkept",
                 "writes")

    def __init__(self, name: str, format: Format, writes: int, *, escapes_line_breaks: bool,
                 lists_after_colon: bool, unkept: tuple[str, ...]) -> None:
        self.name, self.format, self.writes = name, format, writes
        self.escapes_line_breaks = escapes_line_breaks
        self.lists_after_colon = lists_after_colon
        self.unkept = unkept

    def __repr__(self) -> str:
        return f"Generation({self.name!r})"


_NONE_OR_EMPTY = "whether an empty turn's content was None or '' (both are a bare role)"
_NOT_JSON = "values that are not JSON, written as str(value)"
# What `N. role: ` (an empty turn, Form.EMPTY_TURN) cannot say, in the text of
# openai-agents 0.20 and later (handoff-codec writes each of these otherwise).
EMPTY_TURN_UNKEPT = ("whether an empty turn's content was None, missing or '', and whether "
                     "it had an empty name (openai-agents 0.20 and later write each as "
                     "'N. role: ')")
_RAW_BREAKS = ("line breaks in content: it was written raw, so a line of it that "
               "looks like a record cannot be told from a record")

GENERATIONS: tuple[Generation, ...] = (
    Generation(
        "openai-agents 0.6.0 to 0.17.0 (and the Rust and Go ports that copy it)",
        Format.LEGACY_0_6,
        Form.BARE_ROLE | Form.SPILLED | Form.TYPED | Form.NAMED,
        escapes_line_breaks=False, lists_after_colon=True,
        unkept=(
            _RAW_BREAKS,
            "whether content was text or a list (list content was written as a JSON "
            "array after the colon, the same bytes as that text)",
            "non-string content (written as JSON, or str())",
            _NONE_OR_EMPTY,
            "empty names (left out)",
            "the type of an item without a role or type (written 'item')",
        ),
    ),
    Generation(
        "openai-agents 0.17.1 to 0.19.x",
        Format.LEGACY_0_17_1,
        Form.BARE_ROLE | Form.JSON | Form.ESCAPED_BREAK | Form.NAMED | Form.SPACED_JSON,
        escapes_line_breaks=True, lists_after_colon=False,
        unkept=(_NONE_OR_EMPTY, "empty names (left out)", _NOT_JSON),
    ),
    Generation(
        "openai-agents 0.20 and later, handoff-codec",
        Format.CURRENT,
        Form.EMPTY_TURN | Form.JSON | Form.ESCAPED_BREAK | Form.NAMED | Form.SPACED_JSON,
        escapes_line_breaks=True, lists_after_colon=False,
        unkept=(_NOT_JSON,),
    ),
    Generation(
        "openai-agents-js (a development commit, never released)",
        Format.LEGACY,
        Form.BARE_ROLE | Form.SPILLED | Form.JSON,
        escapes_line_breaks=False, lists_after_colon=False,
        unkept=(
            _RAW_BREAKS,
            "names (never written)",
            "list content of text parts, joined into one text",
            _NONE_OR_EMPTY,
        ),
    ),
)


@functools.cache
def candidates(forms: int) -> tuple[Generation, ...]:
    """The generations that write every form in ``forms``.

    When none writes them all (an edited text, or forms of two writers), every
    generation that writes one of them: the text cannot be trusted to rule
    any of those out.
    """
    found = tuple(g for g in GENERATIONS if forms & g.writes == forms)
    if found:
        return found
    return tuple(g for g in GENERATIONS if forms & g.writes)


@functools.cache
def writes_of(writers: tuple[Generation, ...]) -> int:
    """The forms (:class:`Form` flags) any of ``writers`` writes."""
    writes = 0
    for writer in writers:
        writes |= writer.writes
    return writes


@functools.cache
def raw_possible(writers: tuple[Generation, ...]) -> bool:
    """Whether a writer left wrote content raw: a line of content may look like a record."""
    return not writers or not all(writer.escapes_line_breaks for writer in writers)


@functools.cache
def describe(writers: tuple[Generation, ...]) -> tuple[Format, tuple[str, ...], tuple[str, ...]]:
    """The format label of a text the evidence leaves to ``writers``, their names, and
    what their texts cannot hold (each once), for the report."""
    unkept: dict[str, None] = {}
    for writer in writers:
        unkept.update(dict.fromkeys(writer.unkept))
    return label(writers), tuple(writer.name for writer in writers), tuple(unkept)


def label(writers: Iterable[Generation]) -> Format:
    """The format of a text the evidence leaves to ``writers``: theirs when they
    share one, else ``legacy``."""
    formats = {writer.format for writer in writers}
    return formats.pop() if len(formats) == 1 else Format.LEGACY
