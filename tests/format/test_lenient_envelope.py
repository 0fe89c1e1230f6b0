"""The lenient reader's shortcuts agree with the grammar's rules.

The envelope split reads ``grammar/legacy.lark``'s envelope as its LALR
parser does (or leaves the text to the parser), the record heads of a
body numbered 1, 2, 3, ... are the ones the general numbering rule finds, and
the one-pass reading of such a body gives what the general reading gives.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lark import Token
from lark.exceptions import UnexpectedInput

import handoff_codec
from handoff_codec import Codec
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from handoff_codec.format import grammar as _grammar
from handoff_codec.format.errors import ReadFailure
from handoff_codec.format.read.lenient import (
    _heads_by_rule,
    _Numbered,
    _Reader,
    _record_heads,
    _split,
)
from handoff_codec.format.read.strict import SPILLED_LINES
from tests.support.strategies import spliced, token_lists

LITERALS = handoff_codec.format.default_codec._literals
LEGACY_PREAMBLE = "For context, here is the conversation so far:"
SIGNATURE = "(signed hmac-sha256 " + "ab" * 32 + ")\n"
EXAMPLES = settings(max_examples=2000, deadline=None)

PIECES = [
    DEFAULT_PREAMBLE, LEGACY_PREAMBLE, DEFAULT_START, DEFAULT_END, "\n", "\n\n", SIGNATURE,
    "(no previous turns recorded)", "1. user: hi\n", "2. assistant: a\nb\n", "x", " ",
    DEFAULT_PREAMBLE + "\n" + DEFAULT_START + "\n", "\n" + DEFAULT_END,
]


def envelope_texts() -> st.SearchStrategy[str]:
    return spliced(PIECES, st.text(min_size=2, max_size=80), min_size=1, max_size=10, max_run=8)


def lark_envelope(text: str, literals: Any = LITERALS) -> tuple[str, str, int] | None:
    parser = _grammar.legacy_envelope_parser(literals)
    try:
        preamble, body, offset = parser.parse(text)
    except UnexpectedInput:
        return None
    assert isinstance(preamble, Token)
    return preamble.type, body, offset


def split_envelope(text: str, literals: Any = LITERALS) -> tuple[str, str, int] | None:
    """``_split``'s answer in ``lark_envelope``'s shape: it gives the body as offsets."""
    split = _split(text, literals)
    if split is None:
        return None
    preamble, begin, end = split
    return preamble, text[begin:end], begin


def assert_split_agrees(text: str, literals: Any = LITERALS) -> None:
    split = split_envelope(text, literals)
    if split is not None:  # None leaves the text to the parser
        assert split == lark_envelope(text, literals)


@EXAMPLES
@given(envelope_texts())
@example(f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{DEFAULT_END}")
@example(f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n(no previous turns recorded)\n{DEFAULT_END}")
@example(f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}\n")
@example(f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{SIGNATURE}{SIGNATURE}1. user: a\n{DEFAULT_END}")
def test_envelope_split_agrees_with_the_parser(text: str) -> None:
    assert_split_agrees(text)


@EXAMPLES
@given(st.sampled_from([DEFAULT_PREAMBLE, LEGACY_PREAMBLE]), st.booleans(),
       st.one_of(st.text(max_size=40), st.just("(no previous turns recorded)")),
       st.sampled_from(["", "\n", " "]))
def test_envelope_split_agrees_on_well_formed_envelopes(
    preamble: str, signed: bool, body: str, tail: str
) -> None:
    text = f"{preamble}\n{DEFAULT_START}\n{SIGNATURE if signed else ''}{body}\n{DEFAULT_END}{tail}"
    assert_split_agrees(text)


def test_envelope_split_reads_the_common_envelopes() -> None:
    body = "1. user: a\n2. assistant\n  more\n"
    for preamble, kind in ((DEFAULT_PREAMBLE, "PREAMBLE"), (LEGACY_PREAMBLE, "LEGACY_PREAMBLE")):
        for signature in ("", SIGNATURE):
            text = f"{preamble}\n{DEFAULT_START}\n{signature}{body}{DEFAULT_END}"
            offset = len(preamble) + len(DEFAULT_START) + 2 + len(signature)
            assert split_envelope(text) == (kind, body, offset) == lark_envelope(text)


def test_envelope_split_leaves_ambiguous_preambles_to_the_parser() -> None:
    # A preamble that the legacy one starts with: the lexer's choice decides.
    codec = Codec(preamble="For context, here is the conversation")
    text = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}"
    assert _split(text, codec._literals) is None
    assert codec.decode(text).items == [{"role": "user", "content": "a"}]


# Record rests: canned ones (one holding a numbered line), and runs of digits,
# dots, spaces, line breaks and a few letters.
bodies = token_lists(["user: a", "assistant", "{}", "tool: {\"a\": 1}", "x", "", "a\n2. b",
                      f"a\n{DEFAULT_START}\n1. user: b\n{DEFAULT_END}",
                      f"a\n{DEFAULT_START}\nb\n2. user: c", f"a\n{DEFAULT_END}",
                      f"{DEFAULT_START}\n{DEFAULT_START}\n5. x\n{DEFAULT_END}\n3. y"],
                     st.text(alphabet="0123456789. :{}\nabu", min_size=24, max_size=96),
                     min_size=2, max_size=8, max_run=12)


@EXAMPLES
@given(st.sampled_from(["", "text\n", "\n"]), bodies)
@example("text\n", ["user: a"])
def test_heads_of_a_body_numbered_in_order_follow_the_rule(before: str, rests: list[str]) -> None:
    body = before + "".join(f"{number}. {rest}\n" for number, rest in enumerate(rests, 1))
    lines = _Numbered(body)
    inside = lines.inside_spilled_summaries(DEFAULT_START, DEFAULT_END)
    assert _record_heads(lines, DEFAULT_START, DEFAULT_END) == _heads_by_rule(lines, inside)


@EXAMPLES
@given(st.text(alphabet="0123456789.\n a", max_size=40))
@example("1.\n2.\n")
@example("\n1.")
@example("x1.\n12345678901234567890.\n")
@example("a\n1.\n2.")
def test_numbered_lines_are_the_record_number_matches(body: str) -> None:
    # From every offset, also one inside a line: _Numbered finds the line
    # breaks with its own search, then matches RECORD_NUMBER after each.
    for begin in range(len(body) + 1):
        lines = _Numbered(body, begin)
        matches = list(_grammar.terminal("RECORD_NUMBER", "legacy").finditer(body, begin))
        assert list(lines.starts) == [match.start() for match in matches]
        assert list(lines.numbers) == [int(m[1]) if len(m[1]) <= 18 else 0 for m in matches]


# Record rests that each branch of the one-pass reading takes, and ones it
# leaves to the general reading of a record.
RESTS = ["user: a", "assistant: [1]", "user: ", "user:", "system:x", "developer: a: b",
         "assistant", "user \t", "user (bob): x", "user (a:b): c", "tool: {\"a\": 1}",
         '{"role": "user", "content": "[1]"}', '{"a": 1}', "{not json", "user: a\nb",
         "assistant: [\n1]", "x", "", "user: a\n2. b", "user: a\n\n", '{"a": "[[[[[',
         '"]}', '{"a": [[[[[1]]]]]}']
in_order_bodies = token_lists(RESTS, st.text(alphabet="0123456789. :{}[]\n\tabuser",
                                             min_size=24, max_size=96),
                              min_size=1, max_size=8, max_run=12)


def _reading(text: str, in_order: bool) -> tuple[Any, ...]:
    """What a reader of ``text``'s body gives: items and everything it noted, or its failure."""
    split = _split(text, LITERALS)
    assert split is not None
    _, begin, stop = split
    reader = _Reader(text, 4)
    try:
        if in_order:
            items = reader.read_in_order(begin, stop, 3)
            if items is None:
                return (None,)
        else:
            lines = _Numbered(text, begin, stop)
            heads, doubtful = _record_heads(lines, DEFAULT_START, DEFAULT_END, 4)
            items = reader.read(lines, heads, 3, doubtful)
    except ReadFailure as failure:
        return ("failure", str(failure), failure.pos)
    return (items, list(reader.recoveries), reader.json, reader.empty_plain,
            list(reader.listed))


@EXAMPLES
@given(st.sampled_from(["", "text\n", "0. user: a\n"]), in_order_bodies,
       st.sampled_from(["", "2. user: a\n", "1. user: a\n"]))
@example("", ["user: a", "assistant", '{"a": 1}', "user: a\nb"], "")
@example("", ["user: a\n\n", "user: [1]"], "")
@example("", ['{"a": [[[[[1]]]]]}'], "")
@example("", ['{"a": "[[[[[\n5. "]}'], "")
def test_reading_a_body_in_order_agrees_with_the_general_reading(
    before: str, rests: list[str], after: str
) -> None:
    body = before + "".join(f"{number}. {rest}\n" for number, rest in enumerate(rests, 1))
    body += after
    text = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{body}{DEFAULT_END}"
    in_order = _reading(text, in_order=True)
    lines = _Numbered(text, *_split(text, LITERALS)[1:])  # type: ignore[index]
    numbered_in_order = bool(lines.starts) and lines.starts[0] == lines.begin \
        and list(lines.numbers) == list(range(1, len(lines.starts) + 1))
    if in_order == (None,):  # refused: then the body is not one numbered 1, 2, 3, ...
        assert not numbered_in_order
    elif numbered_in_order or in_order[0] != "failure":
        # A failure of a body out of order is left to the general reading.
        assert in_order == _reading(text, in_order=False)


@pytest.mark.parametrize("spilled", [1, SPILLED_LINES, SPILLED_LINES + 1, 3 * SPILLED_LINES])
@pytest.mark.parametrize("rest", ["user: a", "user (bob): a", "tool: {\"a\": 1}"])
def test_a_record_spilled_over_many_lines_reads_as_the_general_reading(
    spilled: int, rest: str
) -> None:
    # The one-pass reading reads a record and the lines that continue it in one
    # match, over a bounded number of lines; past it, the general reading reads
    # the body. Either way the reading is the same, every line kept.
    body = f"1. {rest}\n" + "x\n" * spilled + "2. assistant: b\n"
    text = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{body}{DEFAULT_END}"
    general = _reading(text, in_order=False)
    in_order = _reading(text, in_order=True)
    assert in_order in (general, (None,))
    decoded = handoff_codec.decode(text)
    assert (decoded.items, list(decoded.recoveries)) == tuple(general[:2])
    content = rest.partition(": ")[2]
    assert decoded.items[0]["content"] == content + "\nx" * spilled  # no line dropped
    assert len(decoded.items) == 2
