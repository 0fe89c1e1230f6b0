"""Records are read by what they hold, never by which object holds them.

The records a handed-on message carries share nothing with the response's
contents, and whatever is edited in place afterwards (in the response, in the
message's ``additional_properties``, in a message already read once), this
process reads the message exactly as a process restoring it from a checkpoint
would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Content, Message
from agent_framework_orchestrations import clean_conversation_for_handoff

from handoff_codec.format import Codec
from handoff_codec.integrations import agent_framework as af
from tests.integrations.agent_framework._workflows import quiet
from tests.support.profiles import examples
from tests.support.strategies import json_values

KEY = Codec(key=b"shared secret")


def _response() -> list[Message]:
    arguments = {"order_id": 42, "card": "4111 1111 1111 1111", "tags": ["a"]}
    return [Message("assistant", [Content.from_text("Checking."), Content.from_function_call(
                "c1", "lookup", arguments=arguments)], author_name="a"),
            Message("tool", [Content.from_function_result("c1", result="found")]),
            Message("assistant", ["Done."], author_name="a")]


def _b_sees(handed: list[Message], provider: af.HandoffHistoryProvider) -> list[dict[str, Any]]:
    sent = provider.rewrite([Message("user", ["hi"]), *handed], "b")
    assert sent is not None
    codec = provider.codec
    return [held.to_dict() for m in sent for held in (
        af.loads(m.text, codec=codec) if af.is_summary(m, codec=codec) else [m])]


def _restored(handed: list[Message]) -> list[Message]:
    return [Message.from_dict(json.loads(json.dumps(m.to_dict()))) for m in handed]


def _mutables(value: Any) -> list[Any]:
    """Every dict and list reachable from ``value``."""
    if isinstance(value, dict):
        return [value, *(m for v in value.values() for m in _mutables(v))]
    if isinstance(value, list):
        return [value, *(m for v in value for m in _mutables(v))]
    return []


def _edit_response(response: list[Message]) -> None:
    """An app edits the response in place after it was handed on."""
    call = response[0].contents[1]
    assert isinstance(call.arguments, dict)
    call.arguments["card"] = "[card]"
    call.arguments["tags"].append("b")


EDITS: dict[str, Callable[[list[Message], list[Message]], None]] = {
    "the response's call arguments": lambda response, handed: _edit_response(response),
    "the records' text replaced": lambda response, handed: handed[0].additional_properties[
        af.MARK].update(items="[]"),
}


@pytest.mark.parametrize("codec", [None, KEY], ids=["no key", "keyed"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_in_place_edit_of_the_response_after_hand_on_reads_as_a_restored_process_reads(
        edit: str, codec: Codec | None) -> None:
    response = _response()
    provider = af.HandoffHistoryProvider(codec=codec, on_report=lambda report: None)
    handed = clean_conversation_for_handoff(af.hand_on(response, "a", codec=codec))
    before = _b_sees(handed, provider)  # read once: the cache is warm
    EDITS[edit](response, handed)
    now = _b_sees(handed, provider)
    assert now == _b_sees(_restored(handed), provider)
    if edit == "the response's call arguments":  # the records were a copy: as handed on
        fresh = clean_conversation_for_handoff(af.hand_on(_response(), "a", codec=codec))
        assert now == before == _b_sees(fresh, provider)
    else:  # the seal fails: the message as it reads
        assert [c["type"] for m in now for c in m["contents"]] == ["text", "text", "text"]


@examples(100)
@given(st.data())
def test_any_in_place_edit_of_a_mark_reads_as_a_restored_process_reads(data: st.DataObject
                                                                       ) -> None:
    # Whatever dict or list reachable from a handed-on message's mark is edited in place,
    # after it was read once, this process and a restored one read the same.
    provider = quiet()
    handed = clean_conversation_for_handoff(af.hand_on(_response(), "a"))
    _b_sees(handed, provider)
    props = handed[0].additional_properties
    targets = _mutables(props[af.MARK])
    target = data.draw(st.sampled_from(targets))
    if isinstance(target, dict):
        target[data.draw(st.sampled_from([*target, "output", "items"]))] = data.draw(json_values)
    else:
        target.append(data.draw(json_values))
    assert _b_sees(handed, provider) == _b_sees(_restored(handed), provider)


def test_a_message_read_before_its_text_changed_is_read_as_it_is_now() -> None:
    provider = quiet()
    handed = clean_conversation_for_handoff(af.hand_on(_response(), "a"))
    _b_sees(handed, provider)
    handed[0].contents[0].text = "Checking, with the card [card]."
    read = _b_sees(handed, provider)
    assert read == _b_sees(_restored(handed), provider)
    assert [c["type"] for m in read for c in m["contents"]] == ["text", "text", "text"]
