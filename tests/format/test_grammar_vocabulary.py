"""The grammar is the one source of the format's words, and no message shows its names.

* The encoder's quick plain-record check accepts a line exactly when the
  grammar's ``CANON_PLAIN`` matches it and the reader's ``PLAIN_RECORD`` reads
  back the same fields; so does the inline check in ``encode_records``.
* Every Python constant that repeats a literal of the grammar equals it.
* Error messages speak words, never terminal names such as ``END_MARKER``.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE
from handoff_codec.format import grammar as _grammar
from handoff_codec.format.read.reference import describe
from handoff_codec.format.read.vocabulary import KNOWN_ROLES
from handoff_codec.format.write import encode_records, plain_line
from tests.support.profiles import examples
from tests.support.strategies import LINE_BREAKS, SPACES, json_values, texts

with warnings.catch_warnings():  # deprecated names of re's own parser, kept in 3.11+
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

# ------------------------------------------------------ the plain-record check
names = st.one_of(st.none(), texts, st.sampled_from(["bot", "a b", " bot", "bot ", "a\tb"]))
contents = st.one_of(
    texts,
    texts.map(lambda text: "[" + text),  # CANON_CONTENT may not start with "["
    st.text(),
    st.lists(st.sampled_from(["a", " ", ":", "(", ")", "[", "\t", *LINE_BREAKS, *SPACES])).map(
        "".join),
)
plain_roles = st.one_of(st.sampled_from([*sorted(KNOWN_ROLES), "assistant (bot)", "tool"]), texts)


def reference(role: str, name: str | None, content: str) -> str | None:
    """The grammar's own answer: CANON_PLAIN matches, the reader reads the same back, and
    the line is no legacy bare role's too (`user (a): b)`, an empty turn named "a): b")."""
    line = f"{role}: {content}" if name is None else f"{role} ({name}): {content}"
    if _grammar.terminal("CANON_PLAIN").fullmatch(line) is None:
        return None
    if _grammar.terminal("LEGACY_BARE_NAMED", "legacy").fullmatch(f"1. {line}"):
        return None
    read = _grammar.terminal("PLAIN_RECORD").fullmatch(f"1. {line}\n")
    if read is None or read.group("role", "name", "content") != (role, name, content):
        return None
    return line


@examples(2000)
@given(plain_roles, names, contents)
@example("assistant (bot)", None, "x")
@example("user", None, "a\u2028b")
@example("user", None, " x")
@example("user", "a:b", "x")
@example("user", None, "")
def test_plain_check_accepts_exactly_what_canon_plain_accepts(
    role: str, name: str | None, content: str
) -> None:
    item = {"role": role, "content": content} if name is None else {
        "role": role, "name": name, "content": content}
    expected = reference(role, name, content)
    assert plain_line(item) == expected
    assert_written_as(item, expected)


def assert_written_as(item: dict[str, Any], plain: str | None) -> None:
    """``encode_records`` writes ``item`` as the plain line ``plain``, or as JSON for None."""
    (record,) = encode_records([item])
    if plain is not None:
        assert record == f"1. {plain}"
    else:
        assert record.startswith("1. {")


@examples(300)
@given(st.dictionaries(st.sampled_from(["role", "name", "content", "type"]), json_values))
def test_only_role_name_content_strings_are_plain(item: dict[str, Any]) -> None:
    line = plain_line(item)
    if line is not None:
        assert set(item) in ({"role", "content"}, {"role", "name", "content"})
        assert line == reference(item["role"], item.get("name"), item["content"])
    assert_written_as(item, line)


# ------------------------------------------------------------ one source each
def _language(pattern: str) -> set[str]:
    """Every string a regular expression of literals and alternations matches."""

    def walk(parsed: Any) -> set[str]:
        results = {""}
        for op, arg in parsed:
            if op is sre_constants.LITERAL:
                options = {chr(arg)}
            elif op is sre_constants.SUBPATTERN:
                options = walk(arg[-1])
            elif op is sre_constants.BRANCH:
                options = set().union(*(walk(branch) for branch in arg[1]))
            else:
                raise AssertionError(f"not a finite language: {op}")
            results = {head + tail for head in results for tail in options}
        return results

    return walk(sre_parse.parse(pattern))


def test_known_roles_are_the_grammars() -> None:
    assert _language(_grammar.terminal("KNOWN_ROLE").pattern) == KNOWN_ROLES


@pytest.mark.parametrize(
    ("constant", "terminal", "grammar_name"),
    [
        (DEFAULT_PREAMBLE, "PREAMBLE", "summary"),
        (DEFAULT_START, "START_MARKER", "summary"),
        (DEFAULT_END, "END_MARKER", "summary"),
        (LEGACY_PREAMBLE, "LEGACY_PREAMBLE", "legacy"),
    ],
)
def test_python_constants_equal_the_grammar(
    constant: str, terminal: str, grammar_name: str
) -> None:
    assert constant == _grammar.literal(terminal, grammar_name)


def test_the_empty_transcript_line_is_the_grammars() -> None:
    lines = handoff_codec.dumps([]).split("\n")
    assert lines[2] == _grammar.literal("EMPTY_TRANSCRIPT")
    assert handoff_codec.loads(handoff_codec.dumps([]), strict=True) == []


def test_no_break_is_what_splitlines_breaks_at() -> None:
    no_break = _grammar.terminal("NO_BREAK")
    for code in range(0x110000):
        char = chr(code)
        breaks = len(f"a{char}b".splitlines()) > 1
        assert (no_break.fullmatch(char) is None) == breaks, repr(char)


# ------------------------------------------------------ words, not names
def _terminal_names() -> set[str]:
    from lark import Lark

    found = set()
    for name in ("summary", "legacy"):
        lexer = Lark(_grammar.grammar_text(name), parser=None, lexer="basic",
                     import_paths=[str(_grammar.grammar_dir())])
        found.update(t.name for t in lexer.terminals)
    return found | {"$END"}


TERMINALS = _terminal_names()
ALL_CAPS = re.compile(r"\$END|\b_*[A-Z][A-Z0-9]*_[A-Z0-9_]*\b|\b[A-Z]{4,}\b")


@pytest.mark.parametrize("grammar_name", ["summary", "legacy"])
def test_every_terminal_a_parser_can_expect_is_described(grammar_name: str) -> None:
    literals = (("PREAMBLE", DEFAULT_PREAMBLE), ("START_MARKER", DEFAULT_START),
                ("END_MARKER", DEFAULT_END))
    parser = _grammar.parser(grammar_name, literals=literals)
    fallback = describe("NO_SUCH_TERMINAL")
    for name in [*(t.name for t in parser.terminals), "$END"]:
        assert describe(name) != fallback, name
        assert not ALL_CAPS.search(describe(name)), name


head = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n"
malformed = st.one_of(
    texts,
    st.lists(st.sampled_from([head, "1. user: a\n", "2. {}\n", "x\n", "\n", DEFAULT_END,
                              "(no previous turns recorded)", LEGACY_PREAMBLE + "\n", "1."]),
             max_size=6).map("".join),
)


@examples(1000)
@given(malformed, st.booleans(), st.sampled_from(["fast", "lark"]))
@example("", True, "fast")
@example(head + "1. user: a", False, "fast")
@example(head + "1. user: a\nx\n" + DEFAULT_END, False, "lark")
def test_no_message_names_a_terminal(text: str, strict: bool, engine: str) -> None:
    try:
        handoff_codec.loads(text, strict=strict, engine=engine)  # type: ignore[arg-type]
    except DecodeError as exc:
        for word in exc.expected:
            assert not ALL_CAPS.search(word), exc.expected
        for name in TERMINALS:
            assert name not in exc.msg or name in text, exc.msg
