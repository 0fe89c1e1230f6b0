"""Resource limits: every limit gives a DecodeError that names it, with a position."""

from __future__ import annotations

import pytest

from handoff_codec import Codec, DecodeError, EncodeError
from handoff_codec.format.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORDS
from tests.format.read.summaries import Engine

HEAD = ("For context, here is the conversation so far between the user and the previous agent:\n"
        "<CONVERSATION HISTORY>\n")
TAIL = "\n</CONVERSATION HISTORY>"
MODES = [pytest.param(False, id="lenient"), pytest.param(True, id="strict")]


def summary(*records: str) -> str:
    return HEAD + "\n".join(records) + TAIL


def test_defaults_are_documented_values() -> None:
    codec = Codec()
    assert (codec.max_bytes, codec.max_records, codec.max_depth) == (
        DEFAULT_MAX_BYTES, DEFAULT_MAX_RECORDS, DEFAULT_MAX_DEPTH)
    assert (DEFAULT_MAX_BYTES, DEFAULT_MAX_RECORDS, DEFAULT_MAX_DEPTH) == (32 << 20, 100_000, 200)


def test_codec_with_limits_stays_hashable_and_immutable() -> None:
    a, b = Codec(max_depth=5), Codec(max_depth=5)
    assert a == b and hash(a) == hash(b) and a != Codec()
    with pytest.raises(AttributeError):
        a.max_depth = 6


@pytest.mark.parametrize("field", ["max_bytes", "max_records", "max_depth"])
@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_limits_must_be_positive_ints(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        Codec(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("strict", MODES)
def test_max_bytes(strict: bool, engine: Engine) -> None:
    text = summary("1. user: " + "x" * 200)
    size = len(text.encode())
    assert Codec(max_bytes=size).loads(text, strict=strict, engine=engine)
    with pytest.raises(DecodeError, match="max_bytes") as caught:
        Codec(max_bytes=size - 1).loads(text, strict=strict, engine=engine)
    assert (caught.value.line, caught.value.column) == (4, 23)  # the last byte
    assert caught.value.pos == size - 1


@pytest.mark.parametrize("strict", MODES)
def test_max_bytes_counts_utf8_not_characters(strict: bool, engine: Engine) -> None:
    text = summary("1. user: " + "é" * 100)  # 200 bytes of content, 100 characters
    with pytest.raises(DecodeError, match="max_bytes"):
        Codec(max_bytes=len(text) + 50).loads(text, strict=strict, engine=engine)


def test_max_bytes_counts_lone_surrogates_without_crashing(engine: Engine) -> None:
    text = summary("1. user: \ud800" * 1)
    assert Codec().loads(text, engine=engine) == [{"role": "user", "content": "\ud800"}]
    with pytest.raises(DecodeError, match="max_bytes"):
        Codec(max_bytes=len(text)).loads(text, engine=engine)




@pytest.mark.parametrize("strict", MODES)
@pytest.mark.parametrize("engine", ["fast", "lark"])
def test_max_records(strict: bool, engine: Engine) -> None:
    # A longer summary read first, by any codec: the limit must not depend on it.
    Codec().loads(summary(*(f"{n}. user: m{n}" for n in range(1, 21))))
    records = [f"{n}. user: m{n}" for n in range(1, 11)]
    text = summary(*records)
    assert len(Codec(max_records=10).loads(text, strict=strict, engine=engine)) == 10
    with pytest.raises(DecodeError, match="max_records=9") as caught:
        Codec(max_records=9).loads(text, strict=strict, engine=engine)
    assert (caught.value.line, caught.value.column) == (12, 1)


OVER_THE_LIMIT_AND_BROKEN = {
    "record out of sequence": ["1. user: a", "3. user: b", "3. user: c"],
    "broken line after the limit": ["1. user: a", "2. user: b", "3. user: c", "no record"],
    "bad JSON": ["1. user: a", "2. {bad", "3. user: c"],
    "legacy bare role": ["1. user: a", "2. assistant", "3. user: c"],
}


@pytest.mark.parametrize("strict", MODES)
@pytest.mark.parametrize("records", OVER_THE_LIMIT_AND_BROKEN.values(),
                         ids=OVER_THE_LIMIT_AND_BROKEN.keys())
def test_the_record_limit_is_reported_before_any_other_error(
        records: list[str], strict: bool, engine: Engine) -> None:
    text = summary(*records)
    with pytest.raises(DecodeError, match="max_records=2") as caught:
        Codec(max_records=2).loads(text, strict=strict, engine=engine)
    assert (caught.value.line, caught.value.column, caught.value.reason) == (5, 1, "limit")


@pytest.mark.parametrize("strict", MODES)
def test_a_summary_at_the_record_limit_reads(strict: bool, engine: Engine) -> None:
    text = summary("1. user: a", "2. assistant", "3. user: c")
    codec = Codec(max_records=3)
    if strict:
        with pytest.raises(DecodeError) as caught:
            codec.loads(text, strict=True, engine=engine)
        assert caught.value.reason != "limit"
    else:
        assert len(codec.loads(text, engine=engine)) == 3
    assert len(codec.loads(summary("1. user: a", "2. user: b", "3. user: c"), strict=strict,
                           engine=engine)) == 3


@pytest.mark.parametrize("strict", MODES)
def test_max_depth(strict: bool, engine: Engine) -> None:
    ok = "1. {" + '"a": ' * 0 + '"c": ' + "[" * 4 + "]" * 4 + "}"  # depth 5
    assert Codec(max_depth=5).loads(summary(ok), strict=strict, engine=engine) == [
        {"c": [[[[]]]]}]
    with pytest.raises(DecodeError, match="max_depth=4") as caught:
        Codec(max_depth=4).loads(summary(ok), strict=strict, engine=engine)
    assert (caught.value.line, caught.value.column) == (3, 13)  # the 5th bracket


@pytest.mark.parametrize(("strict", "engine"), [
    (True, "fast"), (True, "lark"), (False, "fast"), (False, "lark")])
def test_max_depth_ignores_brackets_inside_strings(strict: bool, engine: Engine) -> None:
    text = summary('1. {"a": "' + "[" * 500 + '\\"{{{"}')
    assert Codec(max_depth=1).loads(text, strict=strict, engine=engine) == [
        {"a": "[" * 500 + '"{{{'}]


@pytest.mark.parametrize("strict", MODES)
@pytest.mark.parametrize("opening", ["[", "{"])
def test_100000_levels_give_decode_error(strict: bool, opening: str, engine: Engine) -> None:
    text = summary('1. {"a": ' + opening * 100_000)
    with pytest.raises(DecodeError, match=r"nested too deeply.*max_depth=200") as caught:
        Codec().loads(text, strict=strict, engine=engine)
    assert caught.value.line == 3


def test_100000_levels_with_a_huge_max_depth_still_give_decode_error(engine: Engine) -> None:
    text = summary('1. {"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(DecodeError, match="nested too deeply"):
        Codec(max_depth=10**9).loads(text, strict=True, engine=engine)


@pytest.mark.parametrize("strict", MODES)
def test_integer_over_the_digit_limit_is_a_decode_error(strict: bool, engine: Engine) -> None:
    text = summary('1. {"a": ' + "1" * 5000 + "}")
    if strict:
        with pytest.raises(DecodeError, match="invalid JSON record"):
            Codec().loads(text, strict=True, engine=engine)
    else:  # read as a plain record, as the lenient reader does for any non-JSON '{'
        assert Codec().loads(text, engine=engine)[0]["role"].startswith("{")


def test_limits_apply_to_decode_and_flatten(engine: Engine) -> None:
    text = summary("1. user: a", "2. user: b")
    size = len(text.encode())
    with pytest.raises(DecodeError, match="max_bytes"):
        Codec(max_bytes=size - 1).decode(text, engine=engine)
    message = {"role": "assistant", "content": text}
    # flatten keeps an unreadable (here: over-limit) summary as a plain message
    assert Codec(max_bytes=size - 1).flatten([message]) == [message]
    report = Codec(max_bytes=size - 1).flatten_report([message])
    assert "max_bytes" in report.decisions[0].detail
    assert Codec(max_bytes=size).flatten([message]) == [
        {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]


def test_encoder_refuses_what_the_reader_would_refuse(engine: Engine) -> None:
    with pytest.raises(EncodeError, match="max_records"):
        Codec(max_records=1).dumps([{"role": "user", "content": "a"}] * 2)
    with pytest.raises(EncodeError, match="max_depth"):
        Codec(max_depth=2).dumps([{"a": [[1]]}])
    with pytest.raises(EncodeError, match="max_bytes"):
        Codec(max_bytes=100).dumps([{"role": "user", "content": "x" * 100}])
    deep = {"a": [[1]]}
    assert Codec(max_depth=3).loads(Codec(max_depth=3).dumps([deep]), engine=engine) == [deep]
