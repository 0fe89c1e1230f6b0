"""A `type: {...}` line of an item type (or ``item``) that holds no JSON object.

openai-agents 0.6 to 0.17.0 wrote an item as `N. type: {json}`; a line of that shape
whose JSON is not an object is no item, and a message of role `type` is not what the
current format writes either (a strict read refuses it). So it is read as that message,
flagged ``ambiguous`` (lost): ``decode`` exits lossy, ``loads`` warns, ``migrate`` leaves
it. JSON nested past ``max_depth`` is the depth error a JSON record gives.
"""

from __future__ import annotations

import pytest

import handoff_codec
from handoff_codec import Codec, DecodeError, Format, RecoveryKind
from handoff_codec.format import LossWarning
from tests.format.read.summaries import Engine, summary

WORDS = ("function_call", "function_call_output", "reasoning", "message", "item")
NOT_OBJECTS = ("{bad", '{"a": 1} x', "{", '{"a": 1}}', "{'a': 1}")


@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize("json", NOT_OBJECTS)
def test_it_is_a_message_flagged_ambiguous(word: str, json: str, engine: Engine) -> None:
    text = summary(f"1. {word}: {json}")
    decoded = handoff_codec.decode(text, engine=engine)
    assert {"role": word, "content": json} in decoded.items
    assert decoded.format is not Format.CURRENT
    assert [r.kind for r in decoded.recoveries if r.lost] == [RecoveryKind.AMBIGUOUS]
    with pytest.warns(LossWarning):
        handoff_codec.loads(text, engine=engine)


@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize("json", NOT_OBJECTS)
def test_below_a_turn_it_is_that_turns_text_flagged(word: str, json: str,
                                                    engine: Engine) -> None:
    """Below a `role: content` record whose content a raw writer may have spilled, the
    line is no item any writer wrote, but may be that turn's text (the written reading):
    it is read so, ``ambiguous``, with the message reading offered (docs/spec.md,
    "Authority")."""
    head = f"{word}: {json}"
    text = summary("1. user: hi", f"2. {head}", "3. assistant: ok")
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": f"hi\n2. {head}"},
                             {"role": "assistant", "content": "ok"}]
    assert [r.kind for r in decoded.recoveries if r.lost] == [RecoveryKind.AMBIGUOUS]
    assert any({"role": word, "content": json} in candidate.items
               for candidate in decoded.candidates)


@pytest.mark.parametrize("word", WORDS)
def test_json_past_max_depth_is_the_depth_error(word: str, engine: Engine) -> None:
    text = summary(f'1. {word}: {{"call_id": "c", "v": [[1]]}}')
    with pytest.raises(DecodeError) as raised:
        Codec(max_depth=2).decode(text, engine=engine)
    assert raised.value.reason.value == "depth"
