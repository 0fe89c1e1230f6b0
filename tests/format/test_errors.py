"""Malformed input: only DecodeError escapes, with a position inside the text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, DecodeError
from tests.support.strategies import texts

ENVELOPE = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{{}}\n{DEFAULT_END}"
line_soup = st.lists(
    st.one_of(
        texts, st.sampled_from(["1. user: x", "2. assistant", "1. {", "1. {}", "3. f: {}", ""])
    ),
    max_size=6,
).map("\n".join)


def assert_reads_or_points_inside(text: str, strict: bool) -> None:
    try:
        result = handoff_codec.loads(text, strict=strict)
    except DecodeError as exc:
        lines = text.split("\n")
        assert 1 <= exc.line <= len(lines)
        assert 1 <= exc.column <= len(lines[exc.line - 1]) + 1
        assert 0 <= exc.pos <= len(text)
        assert str(exc.line) in str(exc) and str(exc.column) in str(exc)
    else:
        assert isinstance(result, list)


@settings(max_examples=500, deadline=None)
@given(st.one_of(texts, line_soup), st.booleans())
def test_arbitrary_text(text: str, strict: bool) -> None:
    assert_reads_or_points_inside(text, strict)


@settings(max_examples=1000, deadline=None)
@given(line_soup, st.booleans())
def test_arbitrary_body_in_a_valid_envelope(body: str, strict: bool) -> None:
    assert_reads_or_points_inside(ENVELOPE.format(body), strict)


@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ("", 1, 1, "the preamble line"),
        ("hello", 1, 1, "the preamble line"),
        (f"{DEFAULT_PREAMBLE}\n<WRONG>", 2, 1, "the start marker line"),
        (ENVELOPE.format("1. user: a\n3. user: b"), 4, 1, "record 2"),
        (ENVELOPE.format('1. {"role": }'), 3, 13, "a JSON object"),
        (ENVELOPE.format("1. [1]"), 3, 1, "a numbered record"),
        (ENVELOPE.format("1. user: a").removesuffix(DEFAULT_END), 4, 1, "the end marker line"),
    ],
)
def test_strict_errors_say_where_and_what(text: str, line: int, column: int, expected: str) -> None:
    with pytest.raises(DecodeError) as info:
        handoff_codec.loads(text, strict=True)
    assert (info.value.line, info.value.column) == (line, column)
    assert any(expected in e for e in info.value.expected), info.value.expected
    assert isinstance(info.value, ValueError)


def test_lenient_rejects_text_before_the_first_record() -> None:
    with pytest.raises(DecodeError, match="before the first record") as info:
        handoff_codec.loads(ENVELOPE.format("some prose\n1. user: a"))
    assert (info.value.line, info.value.column) == (3, 1)


def test_not_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        handoff_codec.loads(b"bytes")  # type: ignore[arg-type]
