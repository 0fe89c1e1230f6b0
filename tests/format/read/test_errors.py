"""Malformed input: only DecodeError escapes, with a position inside the text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, default_codec
from tests.format.read.summaries import Engine
from tests.support.profiles import examples
from tests.support.strategies import texts

ENVELOPE = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{{}}\n{DEFAULT_END}"
line_soup = st.lists(
    st.one_of(
        texts, st.sampled_from(["1. user: x", "2. assistant", "1. {", "1. {}", "3. f: {}", ""])
    ),
    max_size=6,
).map("\n".join)


def assert_reads_or_points_inside(text: str, strict: bool, engine: Engine) -> None:
    try:
        result = handoff_codec.loads(text, strict=strict, engine=engine)
    except DecodeError as exc:
        lines = text.split("\n")
        assert 1 <= exc.line <= len(lines)
        assert 1 <= exc.column <= len(lines[exc.line - 1]) + 1
        assert 0 <= exc.pos <= len(text)
        assert str(exc.line) in str(exc) and str(exc.column) in str(exc)
    else:
        assert isinstance(result, list)


@examples(500)
@given(text=st.one_of(texts, line_soup), strict=st.booleans())
def test_arbitrary_text(text: str, strict: bool, engine: Engine) -> None:
    assert_reads_or_points_inside(text, strict, engine)


@examples(1000)
@given(body=line_soup, strict=st.booleans())
def test_arbitrary_body_in_a_valid_envelope(body: str, strict: bool, engine: Engine) -> None:
    assert_reads_or_points_inside(ENVELOPE.format(body), strict, engine)


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
def test_strict_errors_say_where_and_what(text: str, line: int, column: int, expected: str,
                                         engine: Engine) -> None:
    with pytest.raises(DecodeError) as info:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert (info.value.line, info.value.column) == (line, column)
    assert any(expected in e for e in info.value.expected), info.value.expected
    assert isinstance(info.value, ValueError)


def test_lenient_rejects_text_before_the_first_record(engine: Engine) -> None:
    with pytest.raises(DecodeError, match="before the first record") as info:
        handoff_codec.loads(ENVELOPE.format("some prose\n1. user: a"), engine=engine)
    assert (info.value.line, info.value.column) == (3, 1)


def test_not_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        handoff_codec.loads(b"bytes")  # type: ignore[arg-type]


# One summary per reason, each read by the reader that raises it.
_BY_REASON = {
    "syntax": ("1. user: hi", {}),
    "numbering": ("1. user: a\n3. user: b", {"strict": True}),
    "json": ("1. {not json}", {"strict": True}),
    "depth": ('1. {"a": ' + "[" * 300 + "]" * 300 + "}", {}),
    "limit": ("1. user: " + "x" * 200, {}),
}


@pytest.mark.parametrize("reason", sorted(_BY_REASON))
def test_every_reason_pickles_and_keeps_its_position(reason: str, engine: Engine) -> None:
    import pickle

    body, options = _BY_REASON[reason]
    text = body if reason == "syntax" else "\n".join(
        (DEFAULT_PREAMBLE, DEFAULT_START, body, DEFAULT_END))
    codec = handoff_codec.Codec(max_bytes=150) if reason == "limit" else default_codec
    with pytest.raises(DecodeError) as caught:
        codec.loads(text, engine=engine, **options)
    err = caught.value
    assert err.reason == reason
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is DecodeError
    assert (again.msg, again.doc, again.pos, again.lineno, again.colno, again.expected,
            again.reason, str(again)) == (err.msg, err.doc, err.pos, err.lineno, err.colno,
                                          err.expected, err.reason, str(err))


def test_position_is_derived_as_json_does() -> None:
    err = DecodeError("bad", "ab\ncd\nef", 4)
    assert (err.lineno, err.colno, err.line, err.column) == (2, 2, 2, 2)
    assert str(err) == "bad (line 2, column 2)"
    assert err.reason == "syntax"
