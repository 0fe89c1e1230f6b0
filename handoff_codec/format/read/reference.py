"""The Lark reference: the LALR parsers built from ``grammar/*.lark`` read the text.

``engine="lark"`` reads with these parsers instead of the fast tokenizer:
``grammar/summary.lark`` for a strict read, ``grammar/legacy.lark`` for the
body lines of a lenient one, which then go through the same evidence, records
and report as the fast reader's lines (tests run every reading test on both).
Lark also words every syntax error, for both engines. Lark is imported only
here, and only when one of these runs.
"""

from __future__ import annotations

from .. import grammar
from ..errors import DecodeError, DecodeReason
from . import lines as _lines
from .envelope import Envelope
from .json_record import json_object
from .vocabulary import message

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from typing import Any

    from lark.exceptions import UnexpectedInput

    from .lines import Line

__all__ = ["describe", "lark_error", "legacy_lines", "strict_items", "syntax_error"]

Literals = tuple[tuple[str, str], ...]
Item = dict[str, "Any"]

# What each terminal of both grammars means to a reader of an error message.
_DESCRIPTIONS = {
    "PREAMBLE": "the preamble line",
    "LEGACY_PREAMBLE": "the short legacy preamble",
    "START_MARKER": "the start marker line",
    "END_MARKER": "the end marker line",
    "EMPTY_TRANSCRIPT": "'(no previous turns recorded)'",
    "EMPTY_LINE": "'(no previous turns recorded)'",
    "_SIGNATURE": "a signature line",
    "_NL": "a line break",
    "RECORDS": "a numbered record 'N. role: content' or 'N. {json}'",
    "JSON_RECORD": "a numbered record 'N. {json}'",
    "PLAIN_RECORD": "a numbered record 'N. role: content'",
    "$END": "the end of the text",
    **{name: "a line of the transcript" for name in _lines.KINDS},
}


def describe(terminal: str) -> str:
    """A terminal of the grammars, in words (never the terminal's own name)."""
    return _DESCRIPTIONS.get(terminal, "text that follows the summary grammar")


def lark_error(text: str, exc: UnexpectedInput) -> DecodeError:
    """Translate a Lark error into a DecodeError that says, in words, what was expected."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        names = exc.accepts or exc.expected
        found = f"{exc.token!s}"[:40]
        what = f"unexpected {found!r}" if exc.token.type != "$END" else "unexpected end of text"
    elif isinstance(exc, UnexpectedCharacters):
        names = exc.allowed or set()
        start = exc.pos_in_stream or 0
        what = f"unexpected {text[start:start + 40]!r}"
    elif isinstance(exc, UnexpectedEOF):
        names = set(exc.expected)
        what = "unexpected end of text"
    else:  # pragma: no cover - Lark raises only the three above
        names, what = set(), "malformed summary"
    expected = tuple(sorted({describe(n) for n in names}))
    pos = getattr(exc, "pos_in_stream", None)
    at_end = isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    )
    if pos is None or pos < 0 or at_end:
        pos = len(text)
    message = f"{what}; expected {' or '.join(expected)}" if expected else what
    return DecodeError(message, text, pos, expected, DecodeReason.SYNTAX)


def _parse(name: str, text: str, literals: Literals) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        return grammar.parser(name, literals=literals).parse(text)
    except UnexpectedInput as exc:
        error = lark_error(text, exc)
        if name == "summary":
            error = _typed_record(error) or error
        raise error from None


def _typed_record(error: DecodeError) -> DecodeError | None:
    """A strict read's error at a typed record (``N. type: {json}``, ``TYPED_HEAD`` of
    ``grammar/summary.lark``, which no plain record starts with), worded as one, at its
    word; None when ``error`` is not at the start of such a line."""
    text, pos = error.doc, error.pos
    head = text.find(". ", pos)
    number = text[pos:head] if head > pos else ""  # the record's number, if a line starts here
    if not (number.isascii() and number.isdigit()) or (pos and text[pos - 1] != "\n"):
        return None
    found = grammar.terminal("TYPED_HEAD").match(text, head + 2)
    if found is None:
        return None
    word = found[0].partition(":")[0]
    return DecodeError(f"a typed record '{word}: {{...}}', as openai-agents 0.6 to 0.17.0 wrote "
                       "an item: not the current format, which writes it as 'N. {...}'; a "
                       "lenient read (without strict or --strict) accepts it", text, head + 2,
                       error.expected, DecodeReason.SYNTAX)


def syntax_error(text: str, literals: Literals, name: str) -> DecodeError | None:
    """The parser's DecodeError for ``text`` under ``grammar/<name>.lark``; None if it parses."""
    try:
        _parse(name, text, literals)
    except DecodeError as error:
        return error
    return None


def strict_items(text: str, literals: Literals, max_depth: int) -> list[Item]:
    """The items of a current-format summary, read by ``grammar/summary.lark``'s parser.

    Raises DecodeError for text that breaks the grammar (worded by Lark), a
    record out of sequence or a JSON record that is not an RFC 8259 object.
    """
    tree = _parse("summary", text, literals)
    body = tree.children[2]
    items: list[Item] = []
    plain = grammar.terminal("PLAIN_RECORD").match
    json_record = grammar.terminal("JSON_RECORD").match
    for run in body.children if body.data == "records" else ():
        chunk, pos, offset = str(run), 0, run.start_pos or 0
        while pos < len(chunk):
            match = plain(chunk, pos)
            if match is not None:
                index, role, name, content = match.group("index", "role", "name", "content")
                item = message(role, content, name)
            else:
                match = json_record(chunk, pos)
                assert match is not None  # the lexer matched one of the two here
                index = match["json_index"]
                try:
                    item = json_object(match["json"], offset + match.start("json"), max_depth)
                except Exception as failure:
                    raise failure.at(text) from None  # type: ignore[attr-defined]
            items.append(item)
            if index != str(len(items)):
                raise DecodeError(f"record number {index!r} out of sequence", text,
                                  offset + pos, (f"record {len(items)}",),
                                  DecodeReason.NUMBERING)
            pos = match.end()
    return items


def legacy_lines(text: str, literals: Literals) -> tuple[Envelope, dict[int, Line]]:
    """The envelope and every body line of ``text``, by ``grammar/legacy.lark``'s parser:
    each line keyed by its offset, as the fast tokenizer gives it."""
    tree = _parse("legacy", text, literals)
    preamble = tree.children[0]
    body = next(child for child in tree.children if getattr(child, "data", None) in (
        "lines", "no_records"))
    tokens = list(body.children) if body.data == "lines" else []
    edge = tokens or body.children  # the lines, or the empty transcript's line
    begin, stop = edge[0].start_pos or 0, edge[-1].end_pos or 0
    envelope = Envelope(preamble.children[0].type == "LEGACY_PREAMBLE", begin, stop,
                        text.count("\n", 0, begin) + 1, not tokens)
    found: dict[int, Line] = {}
    for token in tokens:
        match = grammar.terminal(token.type, "legacy").fullmatch(str(token))
        assert match is not None  # the lexer matched this terminal here
        groups = match.groupdict("")
        number = next((value for key, value in groups.items() if key.endswith("_n")), "")
        found[token.start_pos or 0] = (number, *(groups.get(field, "")
                                                 for field in _lines.FIELDS[1:]))  # type: ignore[assignment]
    return envelope, found
