"""Promise 1: the model sees what it would have seen, and nothing the framework keeps for itself.

The receiving agent's model gets the user's messages and its own as the framework
built them, and each run of other agents' messages as ONE summary of what a model
is sent of them: text, calls with ids and arguments, results, reasoning, media.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("agent_framework_orchestrations")
pytest.importorskip("agent_framework_openai")

from agent_framework import Content, Message

import handoff_codec
from handoff_codec.integrations import Encoded
from handoff_codec.integrations.agent_framework import (
    HandoffHistoryProvider,
    hand_on,
    is_summary,
    model_items,
    summary_message,
)
from tests.integrations.agent_framework._messages import any_message
from tests.integrations.agent_framework._workflows import (
    IMAGE,
    QUESTION,
    contents,
    openai_request_bytes,
    quiet,
    replies,
    run,
    run_chain,
    summaries,
    unpaired_calls,
)
from tests.support.profiles import examples

BOOKKEEPING = ("same_message", "message_id", "additional_properties", "raw_representation",
               "usage", "exception", "chatcmpl-", "resp_68a1", "fp_0123456789", "token_count")


def test_the_receiver_gets_the_users_turns_and_one_summary_per_run_of_other_agents() -> None:
    sent = run([quiet()])["c"].requests[0]
    assert [(m.role, is_summary(m)) for m in sent] == [
        ("user", False), ("user", True), ("user", False), ("user", True)]
    assert sent[0].text == QUESTION  # the user's own turns, as the framework hands them on
    assert [c.type for c in sent[2].contents] == ["text", "uri"]
    assert sent[2].contents[1].uri == IMAGE
    first, second = summaries(sent)
    # A's first run: two text blocks, two parallel calls (dict and JSON-string arguments),
    # their results (one failed), and its closing line.
    assert [(m.role, m.author_name) for m in first if m.text] == [
        ("assistant", "a"), ("assistant", "a")]
    assert [c.text for c in contents(first, "text")] == [
        "Let me look.", "And try a refund.",
        "Order 42 was charged twice; the refund needs approval."]
    assert [(c.call_id, c.name, c.arguments) for c in contents(first, "function_call")] == [
        ("t1", "lookup_order", {"order_id": 42}), ("t2", "refund", '{"order_id": 42}')]
    assert [(c.call_id, c.result) for c in contents(first, "function_result")] == [
        ("t1", "order 42: charged twice, 10:00 and 10:05"), ("t2", "Error: Function failed.")]
    # A's handoff turn (it said nothing: the framework hands on none of it), then B's.
    assert [c.text for c in contents(second, "text_reasoning")] == [
        "Approving refunds is billing's job."]
    assert [c.call_id for c in contents(second, "function_call")] == ["h1", "h2"]
    assert [c.call_id for c in contents(second, "function_result")] == ["h1", "h2"]
    assert [c.text for c in contents(second, "text")] == [
        "Billing here: it is a duplicate; support will refund it."]


def test_the_frameworks_default_handoff_loses_what_ours_keeps() -> None:
    # agent_framework_orchestrations 1.4.0 (clean_conversation_for_handoff) hands C the
    # text of each turn and the user's media, and drops every function call, result and
    # reasoning block, and A's handoff turn whole. If this fails, the framework changed:
    # update docs/frameworks.md.
    (default,) = run([])["c"].requests
    assert [(m.role, m.author_name) for m in default] == [
        ("user", None), ("assistant", "a"), ("assistant", "a"), ("user", None), ("assistant", "b")]
    assert {c.type for m in default for c in m.contents} == {"text", "uri"}
    (ours,) = run([quiet()])["c"].requests
    held = [m for messages in summaries(ours) for m in messages]
    assert (len(contents(held, "function_call")), len(contents(held, "function_result")),
            len(contents(held, "text_reasoning"))) == (4, 4, 1)


def test_the_summary_holds_none_of_the_frameworks_bookkeeping() -> None:
    # The summaries carried framework internals: "same_message" keys (issue 38).
    for metadata in (False, True):
        sent, _ = asyncio.run(run_chain([quiet()], 4, metadata=metadata))
        texts = [m.contents[0].text or "" for m in sent if is_summary(m)]
        assert len(texts) == 2  # B's own turn of hop 1 stays between them
        for text in texts:
            for word in BOOKKEEPING:
                assert word not in text, word
            records = handoff_codec.loads(text)
            assert {k for r in records for k in r} <= {
                "role", "name", "content", "type", "call_id", "arguments", "output", "text"}
    sent_plain, _ = asyncio.run(run_chain([quiet()], 4))
    sent_rich, _ = asyncio.run(run_chain([quiet()], 4, metadata=True))
    assert [m.text for m in sent_plain] == [m.text for m in sent_rich]  # metadata adds no byte


@pytest.mark.parametrize("metadata", [False, True], ids=["plain", "metadata"])
@pytest.mark.parametrize("hops", [1, 5, 10])
def test_bytes_sent_are_within_a_quarter_of_the_lossless_native_request(
        hops: int, metadata: bool) -> None:
    # Native: Agent Framework's OpenAI client's request for the whole conversation, nothing
    # dropped. Ours: the same client's request for what the receiver's model is sent.
    sent, responses = asyncio.run(run_chain([quiet()], hops, metadata=metadata))
    native = [Message("user", [QUESTION]), *hand_on_free(responses[:-1])]
    assert unpaired_calls(native) == []
    ratio = openai_request_bytes(sent) / openai_request_bytes(native)
    assert ratio <= 1.25, ratio


def hand_on_free(messages: list[Message]) -> list[Message]:
    """The responses without the carriers hand_on puts in turns that said nothing."""
    from handoff_codec.integrations.agent_framework import thread

    return thread(messages)


def test_an_agent_handed_back_keeps_its_own_history_native() -> None:
    scripts = replies()
    scripts["c"] = [Message("assistant", [
        Content.from_text("Back to A."), Content.from_function_call("h3", "handoff_to_a")])]
    scripts["a"].append(Message("assistant", ["A again."]))
    sent = run([quiet()], scripts)["a"].requests[3]
    assert unpaired_calls(sent) == []
    own = [m for m in sent if not is_summary(m) and m.role != "user"]
    assert [c.call_id for c in contents(own, "function_call")] == ["t1", "t2", "h1"]
    assert [c.call_id for c in contents(own, "function_result")] == ["t1", "t2", "h1"]
    (summary,) = summaries(sent)
    assert [m.author_name for m in summary if m.text] == ["b", "c"]
    assert [c.call_id for c in contents(summary, "function_call")] == ["h2", "h3"]


def test_a_receiver_with_nothing_from_other_agents_is_left_alone() -> None:
    scripts = replies()
    scripts["a"][2] = Message("assistant", ["No handoff: it is the same charge."])
    clients = run([quiet()], scripts)
    assert clients["b"].requests == clients["c"].requests == []
    assert not any(is_summary(m) for request in clients["a"].requests for m in request)


def test_no_system_message_or_instruction_carries_the_summary() -> None:
    for client in run([quiet()]).values():
        for messages, options in zip(client.requests, client.options, strict=True):
            for message in messages:
                if message.role in ("system", "developer"):
                    assert handoff_codec.format.DEFAULT_START not in message.text
            assert handoff_codec.format.DEFAULT_START not in str(options.get("instructions"))


def test_the_summary_role_and_media_options() -> None:
    reports: list[Encoded] = []
    clients = run([HandoffHistoryProvider(role="assistant", on_report=reports.append)])
    sent = clients["c"].requests[0]
    assert [(m.role, is_summary(m)) for m in sent] == [
        ("user", False), ("assistant", True), ("user", False), ("assistant", True)]
    assert len(reports) == 4 and all(r.lossless for r in reports)  # B's request, C's
    with pytest.raises(ValueError, match="user or assistant"):
        HandoffHistoryProvider(role="system")  # type: ignore[arg-type]
    shot = Message("assistant", [Content.from_text("made it"),
                                 Content.from_uri(IMAGE, media_type="image/png")],
                   author_name="a")
    assert [c.type for c in summary_message([shot]).contents] == ["text", "uri"]
    assert [c.type for c in summary_message([shot], attach_media=False).contents] == ["text"]
    assert [c.type for c in summary_message([shot], role="assistant").contents] == ["text"]


def _visible_counts(messages: list[Message]) -> dict[str, int]:
    sent = {"function_call", "function_result", "text", "uri", "data", "hosted_file"}
    counts = {kind: len(contents(messages, kind)) for kind in sent}
    counts["text_reasoning"] = sum(c.text is not None
                                   for c in contents(messages, "text_reasoning"))
    return counts


def _item_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    def parts(kind: str) -> int:
        return sum(1 for i in items for p in (i.get("content") if isinstance(i.get("content"), list)
                                             else []) if p["type"] in kind)
    texts = sum(isinstance(i.get("content"), str) for i in items) + parts(
        ("input_text", "output_text"))
    return {"function_call": sum(i.get("type") == "function_call" for i in items),
            "function_result": sum(i.get("type") == "function_call_output" for i in items),
            "text_reasoning": sum(i.get("type") == "reasoning" for i in items),
            "text": texts, "media": parts(("input_image", "input_file"))}


@examples(200)
@given(st.lists(any_message(), max_size=5))
def test_model_items_keep_every_visible_content_and_no_bookkeeping(
        messages: list[Message]) -> None:
    items = model_items(messages)
    written = json.dumps(items, ensure_ascii=False)
    assert '"same_message"' not in written and '"message_id"' not in written
    assert '"additional_properties"' not in written and '"exception"' not in written
    want = _visible_counts(messages)
    got = _item_counts(items)
    media = want.pop("uri") + want.pop("data") + want.pop("hosted_file")
    assert got.pop("media") == media
    assert got == want
    # The summary of the same messages reads back to the same items.
    text = summary_message(messages, on_report=lambda r: None).contents[0].text or ""
    assert handoff_codec.loads(text) == json.loads(json.dumps(items)) or not items


def test_a_report_callback_gets_every_summary() -> None:
    reports: list[Encoded] = []
    run([HandoffHistoryProvider(on_report=reports.append)])
    assert len(reports) == 4  # B's request: two summaries; C's request: two
    assert all(report.lossless for report in reports)


def test_hand_on_marks_what_the_framework_hands_on_and_adds_a_carrier_only_when_it_hands_none(
        ) -> None:
    said = [Message("assistant", [Content.from_text("hi"), Content.from_function_call("c", "f")],
                    author_name="a"),
            Message("tool", [Content.from_function_result("c", result="ok")], author_name="a")]
    marked = hand_on(said, "a")
    assert len(marked) == 2 and [m.text for m in marked] == ["hi", ""]
    assert model_items(marked[:1]) == model_items(said)
    silent = [Message("assistant", [Content.from_function_call("c", "f")], author_name="a"),
              Message("tool", [Content.from_function_result("c", result="ok")], author_name="a")]
    carried = hand_on(silent, "a")
    assert len(carried) == 3 and carried[0].text == " " and carried[1:] == silent
    assert model_items(carried[:1]) == model_items(silent)
