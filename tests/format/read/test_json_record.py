"""NaN and Infinity: RFC 8259 JSON has neither.

The encoder refuses them, the strict reader refuses them, and the lenient
reader reads them with a note, because openai-agents writes JSON records with
``json.dumps`` defaults, which write them.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import handoff_codec
from handoff_codec import DecodeError, EncodeError
from tests.format.read.summaries import Engine
from tests.support.sdk import sdk_summarize

CONSTANTS = [("NaN", math.nan), ("Infinity", math.inf), ("-Infinity", -math.inf)]


@pytest.mark.parametrize(("_word", "value"), CONSTANTS)
def test_the_encoder_refuses_them(_word: str, value: float) -> None:
    for item in ({"type": "x", "v": value}, {"type": "x", "v": [1, {"w": value}]}):
        with pytest.raises(EncodeError, match="item 0"):
            handoff_codec.dumps([item])
    assert handoff_codec.loads(handoff_codec.dumps([{"type": "x", "v": 1e308}])) == [
        {"type": "x", "v": 1e308}]


def _summary(word: str) -> str:
    text = handoff_codec.dumps([{"role": "user", "content": "NaN"}, {"type": "x", "v": 1.5}])
    return text.replace("1.5", word)


@pytest.mark.parametrize(("word", "_value"), CONSTANTS)
def test_the_strict_reader_refuses_them(word: str, _value: float, engine: Engine) -> None:
    text = _summary(word)
    with pytest.raises(DecodeError) as caught:
        handoff_codec.loads(text, strict=True, engine=engine)
    err = caught.value
    assert err.reason == "json"
    assert (err.lineno, err.colno) == (4, 4 + len('{"type": "x", "v": ')), str(err)
    assert word in err.msg


def test_the_strict_reader_keeps_them_inside_strings(engine: Engine) -> None:
    items = [{"type": "x", "v": "NaN -Infinity", "NaN": 1}]
    assert handoff_codec.loads(handoff_codec.dumps(items), strict=True, engine=engine) == items


@pytest.mark.parametrize(("word", "value"), CONSTANTS)
def test_the_lenient_reader_reads_them_and_says_so(word: str, value: float,
                                                   engine: Engine) -> None:
    decoded = handoff_codec.decode(_summary(word), engine=engine)
    assert decoded.items[0] == {"role": "user", "content": "NaN"}
    got = decoded.items[1]["v"]
    assert math.isnan(got) if math.isnan(value) else got == value
    [recovery] = decoded.recoveries
    assert (recovery.kind, recovery.line, recovery.lost) == ("non_standard_json", 4, False)
    # Not the current format; a JSON record with Python's separators: 0.17.1 and later
    # wrote it (openai-agents-js wrote compact JSON).
    assert decoded.format == "legacy" and decoded.lossless and decoded.candidates == ()
    assert decoded.writers == ("openai-agents 0.17.1 to 0.19.x",
                               "openai-agents 0.20 and later, handoff-codec")


def test_the_agents_sdk_writes_them_and_the_lenient_reader_reads_them(engine: Engine) -> None:
    items: list[dict[str, Any]] = [{"type": "function_call_output", "call_id": "c",
                                    "output": "x", "score": math.inf}]
    text = sdk_summarize(items)["content"]
    assert "Infinity" in text
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == items
    assert [r.kind for r in decoded.recoveries] == ["non_standard_json"]
    with pytest.raises(DecodeError):
        handoff_codec.loads(text, strict=True, engine=engine)
