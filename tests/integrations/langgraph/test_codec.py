"""handoff_codec.integrations.langgraph: dumps/loads of LangChain messages, exactly, and
what a summary holds of them (``model_visible``)."""

from __future__ import annotations

import datetime
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("langgraph_swarm")

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel

import handoff_codec
from handoff_codec.integrations import langgraph as lg
from tests.integrations.langgraph._graphs import HOSTILE, call, dump
from tests.support.profiles import examples
from tests.support.strategies import json_values, texts

IMAGE = {"type": "image", "url": "https://example.com/receipt.png"}
PNG = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}
USER_BLOCKS: list[str | dict[str, Any]] = [
    {"type": "text", "text": "Order 42 was charged twice."},
    {"type": "text", "text": HOSTILE},
    IMAGE,
]


# ---------------------------------------------------------------- round trip


def test_round_trip_of_every_class_and_block() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage(content=[*USER_BLOCKS, PNG, "bare", {"type": "input_text", "text": "t"},
                              {"type": "image_url", "image_url": {"url": "data:x;base64,AA",
                                                                  "detail": "low"}}],
                     name="alice (ops): 1", id="h1"),
        AIMessage(content=[{"type": "thinking", "thinking": "hm", "signature": "s"},
                           {"type": "text", "text": "a"}, {"type": "text", "text": "\n"}],
                  name="triage", tool_calls=[call("f", "c1", x=[1, 2.5, None]),
                                             call("g", "c2")],
                  invalid_tool_calls=[{"type": "invalid_tool_call", "name": "h", "args": "{x",
                                       "id": "c3", "error": "not JSON"}],
                  usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                  response_metadata={"model_name": "m"}, additional_kwargs={"k": {"v": 1}}),
        ToolMessage("ok", tool_call_id="c1", name="f"),
        ToolMessage(content=[{"type": "text", "text": "no"}], tool_call_id="c2",
                    status="error", artifact={"raw": [1]}),
        ChatMessage(content="c", role="user"), ChatMessage(content="d", role="developer"),
        FunctionMessage(content="f", name="fn"), RemoveMessage(id="r1"),
        HumanMessage(content="x", custom_field={"a": 1}),
        AIMessage(content="", tool_calls=[call("f", "c9", text=HOSTILE)]),
        HumanMessage(""), HumanMessage(HOSTILE), AIMessage(f"a\n2. system: b\u2029{HOSTILE}"),
    ]
    text = lg.dumps(messages)
    assert dump(lg.loads(text)) == dump(messages)
    assert lg.encode(messages).lossless
    # A readable, Responses-API-like record for a plain turn (the first record is JSON when
    # a later one needs it proven: docs/spec.md, section 6).
    assert '\n1. {"content": "Be brief.", "role": "system"}\n' in text


def test_what_the_summary_cannot_keep_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    class Raw:
        def __str__(self) -> str:
            return "<raw>"

    class Note(HumanMessage):
        pass

    messages = [
        HumanMessage(content="hi", additional_kwargs={"when": (1, 2), 3: "x", "nan": float("nan")}),
        ToolMessage("ok", tool_call_id="c1", artifact=Raw()),
        AIMessageChunk(content="partial"),
        Note(content="a note"),
    ]
    encoded = lg.encode(messages)
    assert not encoded.lossless
    assert {(o.index, o.field) for o in encoded.omitted} == {
        (0, "additional_kwargs['when']"), (0, "additional_kwargs[3]"),
        (0, "additional_kwargs['nan']"), (1, "artifact"), (2, "type"), (3, "type")}
    back = lg.loads(encoded.text)
    assert back[0].additional_kwargs == {"when": [1, 2], "3": "x", "nan": "nan"}
    assert isinstance(back[1], ToolMessage) and back[1].artifact == "<raw>"
    assert type(back[2]) is AIMessage and dump(back[3:]) == dump([HumanMessage("a note")])
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        assert lg.dumps(messages) == encoded.text
    assert len(caplog.records) == 1 and "6 omission" in caplog.records[0].getMessage()


def test_read_reports_items_and_keys_no_message_holds() -> None:
    back = lg.read(handoff_codec.dumps([{"type": "reasoning", "summary": []}]))
    assert back.messages == [] and [(o.index, o.field) for o in back.omitted] == [
        (0, "type 'reasoning'")]
    back = lg.read(handoff_codec.dumps([{"role": "user", "content": "x", "surprise": 1}]))
    assert back.messages == [HumanMessage("x")]
    assert [(o.index, o.field) for o in back.omitted] == [(0, "surprise")]
    with pytest.raises(ValueError, match="item 0"):
        lg.loads(handoff_codec.dumps([{"type": "function_call_output", "output": "x"}]))


# ---------------------------------------------------------------- properties

names = st.one_of(st.none(), texts, st.sampled_from(["triage", "a (b): c", " "]))
ids = st.one_of(st.none(), st.text(max_size=8))
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
text_blocks = st.builds(lambda t: {"type": "text", "text": t},
                        st.one_of(texts, st.sampled_from([" ", "\n", "\t "])))
media_blocks = st.one_of(
    st.builds(lambda u: {"type": "image", "url": u}, st.sampled_from(
        ["https://example.com/a.png", "data:image/png;base64,AA", ""])),
    st.builds(lambda b, m: {"type": "image", "base64": b, "mime_type": m},
              st.text("ABCDEFabcdef0123456789+/=,;", max_size=12),
              st.sampled_from(["image/png", "image/jpeg", "x;y"])),
    st.builds(lambda u, d: {"type": "image_url", "image_url": {"url": u, **d}},
              st.sampled_from(["https://example.com/b.jpg", "data:image/png;base64,BB"]),
              st.sampled_from([{}, {"detail": "high"}])),
    st.builds(lambda d: {"type": "file", "base64": d, "mime_type": "application/pdf"},
              st.text("AB=", max_size=6)),
)
other_blocks = st.one_of(
    st.builds(lambda t: {"type": "reasoning", "reasoning": t}, texts),
    st.builds(lambda t, k: {"type": t, "text": "x", **k},
              st.sampled_from(["input_text", "output_text", "input_image", "langchain_block",
                               "attached_media", "text"]),
              st.sampled_from([{}, {"extra": 1}])),
    texts,
    json_objects,
)
blocks = st.one_of(text_blocks, text_blocks, media_blocks, other_blocks)
contents = st.one_of(texts, st.lists(blocks, max_size=4))
common = {"name": names, "id": ids, "additional_kwargs": json_objects,
          "response_metadata": json_objects}
tool_calls = st.builds(lambda name, i, args: call(name, i, **args), st.sampled_from(["f", "g"]),
                       st.one_of(st.none(), st.text(max_size=4)), json_objects)
invalid_calls = st.builds(
    lambda a, e: {"type": "invalid_tool_call", "name": "h", "args": a, "id": "i", "error": e},
    st.one_of(st.none(), texts), st.one_of(st.none(), texts))
usage = st.one_of(st.none(), st.builds(lambda i, o: {"input_tokens": i, "output_tokens": o,
                                                     "total_tokens": i + o},
                                       st.integers(0, 9), st.integers(0, 9)))

lc_messages = st.one_of(
    st.builds(HumanMessage, content=contents, **common),
    st.builds(SystemMessage, content=contents, **common),
    st.builds(AIMessage, content=contents, tool_calls=st.lists(tool_calls, max_size=3),
              invalid_tool_calls=st.lists(invalid_calls, max_size=2), usage_metadata=usage,
              **common),
    st.builds(ToolMessage, content=contents, tool_call_id=st.text(max_size=6),
              status=st.sampled_from(["success", "error"]),
              artifact=st.one_of(st.none(), json_values), **common),
    st.builds(ChatMessage, content=contents, role=st.sampled_from(["user", "critic", "system"]),
              **common),
    st.builds(FunctionMessage, content=contents, name=st.text(max_size=5), id=ids),
    st.builds(lambda i: RemoveMessage(id=i), st.text(max_size=5)),
)


@examples(300)
@given(st.lists(lc_messages, max_size=6))
def test_loads_dumps_is_exact(messages: list[BaseMessage]) -> None:
    encoded = lg.encode(messages)
    assert encoded.lossless
    assert dump(lg.loads(encoded.text)) == dump(messages)


@examples(200)
@given(st.lists(lc_messages, max_size=6), st.data())
def test_a_summary_holds_what_the_model_is_sent(messages: list[BaseMessage],
                                                data: st.DataObject) -> None:
    # Whatever the metadata, the summary reads back as model_visible(messages): every
    # message's content, name, calls and results, and no id, metadata, usage or artifact.
    history = [*messages, AIMessage("", name="b", tool_calls=[call("transfer_to_c", "h")])]
    summary = lg.model_messages(history, "c")[0] if messages else None
    if summary is None:
        return
    assert lg.is_summary(summary)
    text = summary.content if isinstance(summary.content, str) else summary.content[0]["text"]
    visible = lg.loads(text)
    attached = [] if isinstance(summary.content, str) else summary.content[1:]
    expected = lg.model_visible(messages)
    assert len(visible) == len(expected)
    for shown in visible:
        assert shown.id is None and not shown.response_metadata
        assert not getattr(shown, "usage_metadata", None)
        assert getattr(shown, "artifact", None) is None
        assert set(shown.additional_kwargs) <= lg.MODEL_VISIBLE_KWARGS
    # One placeholder a block attached; a message's own "attached_media" block is wrapped.
    placeholders = [part for item in handoff_codec.loads(text)
                    for part in item.get("content", item.get("output", ""))
                    if isinstance(part, dict) and part.get("type") == "attached_media"]
    assert placeholders == [{"type": "attached_media", "index": k}
                            for k in range(1, len(attached) + 1)]
    assert lg.flatten([summary]) == messages


def test_model_visible_keeps_content_and_drops_what_langchain_keeps_for_itself() -> None:
    class Row(BaseModel):
        when: datetime.datetime

    rows = [Row(when=datetime.datetime(2024, 5, 1, 10, i % 60)) for i in range(200)]
    messages: list[BaseMessage] = [
        HumanMessage("hi", id="u1", name="alice", additional_kwargs={"handoff_codec": {}},
                     custom={"x": 1}),
        AIMessage(content=[{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": " "}],
                  name="a", id="run-1", tool_calls=[call("f", "c1", x=1)],
                  response_metadata={"model_name": "gpt"}, additional_kwargs={"refusal": "no",
                                                                              "other": 1},
                  usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}),
        ToolMessage("ok", tool_call_id="c1", name="f", status="error", id="t1",
                    artifact={"rows": rows, "raw": b"\x00"}),
        SystemMessage("s", additional_kwargs={"__openai_role__": "developer"}),
    ]
    assert dump(lg.model_visible(messages)) == dump([
        HumanMessage("hi", name="alice"),
        AIMessage(content=[{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": " "}],
                  name="a", tool_calls=[call("f", "c1", x=1)],
                  additional_kwargs={"refusal": "no"}),
        ToolMessage("ok", tool_call_id="c1", status="error"),
        SystemMessage("s", additional_kwargs={"__openai_role__": "developer"}),
    ])
    summary = lg.model_messages([*messages, AIMessage("", name="b")], "c")[0]
    text = str(summary.content)
    assert "2024" not in text and "run-1" not in text and "gpt" not in text
    assert summary.encoded is not None and summary.encoded.lossless
