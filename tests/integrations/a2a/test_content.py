"""What the sender puts on the wire of each framework's content, and what receivers make of files.

Only what a model is sent goes over (an allow-list of fields, recursively),
every kind of call leaves with a result, PydanticAI's retry prompts travel as
PydanticAI sends them, and a request's file parts reach each receiver
whatever their media type says.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from a2a.types import Message, Part, Role
from agent_framework import Content as AFContent
from agent_framework import Message as AFMessage
from google.protobuf.json_format import MessageToJson
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage
from pydantic_ai import messages as pai

import handoff_codec
from handoff_codec import EncodeError
from handoff_codec.integrations import a2a
from tests.integrations.a2a.wire import adk_b, app, send
from tests.support.profiles import examples

S = "SECRET-5e1d"

#: Each sender's content with a field of the provider's own beside what the model sees.
PRIVATE: dict[str, tuple[list[Any], str]] = {
    "anthropic thinking signature": (
        [
            HumanMessage("hi"),
            AIMessage([{"type": "thinking", "thinking": "let me think", "signature": S}, "ok"]),
        ],
        "let me think",
    ),
    "anthropic redacted thinking": (
        [
            HumanMessage("hi"),
            AIMessage([{"type": "redacted_thinking", "data": S}, {"type": "text", "text": "ok"}]),
        ],
        "ok",
    ),
    "reasoning id and signature": (
        [
            HumanMessage("hi"),
            AIMessage(
                [
                    {"type": "reasoning", "reasoning": "r1", "id": S, "extras": {"signature": S}},
                    {"type": "text", "text": "ok"},
                ]
            ),
        ],
        "r1",
    ),
    "openai reasoning block": (
        [
            HumanMessage("hi"),
            AIMessage(
                [
                    {"type": "reasoning", "id": S, "summary": [], "encrypted_content": S},
                    {"type": "text", "text": "ok"},
                ]
            ),
        ],
        "ok",
    ),
    "text block id and annotations": (
        [
            HumanMessage("hi"),
            AIMessage([{"type": "text", "text": "answer", "id": S, "annotations": [{"u": S}]}]),
        ],
        "answer",
    ),
    "langchain additional_kwargs and ids": (
        [
            HumanMessage("hi", id=S, additional_kwargs={"x": S}, response_metadata={"r": S}),
            AIMessage("ok", id=S, additional_kwargs={"refusal": None, "s": S}),
        ],
        "ok",
    ),
    "chat message roles System and Developer": (
        [
            ChatMessage(role="System", content=S),
            ChatMessage(role="DEVELOPER", content=S),
            HumanMessage("hi"),
        ],
        "hi",
    ),
    "agents sdk encrypted reasoning and logprobs": (
        [
            {"role": "user", "content": "hi"},
            {
                "id": S,
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "thought"}],
                "encrypted_content": S,
            },
            {
                "id": S,
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": "ans",
                        "annotations": [],
                        "logprobs": [{"token": S, "logprob": -0.1, "bytes": [1]}],
                    }
                ],
            },
        ],
        "thought",
    ),
    "agent framework error code": (
        [
            AFMessage(role="user", contents=[AFContent.from_text("hi")]),
            AFMessage(
                role="assistant", contents=[AFContent.from_error(message="disk full", error_code=S)]
            ),
        ],
        "disk full",
    ),
}


@pytest.mark.parametrize("case", sorted(PRIVATE))
def test_only_model_visible_fields_go_over_the_wire(case: str) -> None:
    conversation, visible = PRIVATE[case]
    wire = MessageToJson(a2a.pack(conversation, prompt="p"))
    assert S not in wire
    assert visible in wire


def test_an_item_no_model_is_sent_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    items = [{"role": "user", "content": "hi"}, {"type": "compaction_marker", "x": 1}]
    with caplog.at_level(logging.WARNING, "handoff_codec"):
        assert a2a.to_items(items) == [items[0]]
    assert "compaction_marker" in caplog.text
    kept, omitted = a2a.model_visible(items)
    assert kept == [items[0]] and [o.index for o in omitted] == [1]


# ---------------------------------------------------------------- every call with a result


@pytest.mark.parametrize(
    ("call", "result"),
    [
        (
            {"type": "function_call", "call_id": "x", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "x", "output": a2a.NO_RESULT},
        ),
        (
            {"type": "custom_tool_call", "call_id": "x", "name": "apply_patch", "input": "*** "},
            {"type": "custom_tool_call_output", "call_id": "x", "output": a2a.NO_RESULT},
        ),
    ],
)
def test_every_kind_of_call_leaves_with_a_result(call: dict[str, Any], result: Any) -> None:
    items = [{"role": "user", "content": "go"}, call]
    assert handoff_codec.loads(a2a.pack(items).parts[1].text) == [*items, result]


def test_agent_framework_hosted_calls_are_paired_and_approvals_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    call = AFContent.from_function_call(call_id="c9", name="pay", arguments={"amt": 5})
    conversation = [
        AFMessage(role="user", contents=[AFContent.from_text("hi")]),
        AFMessage(
            role="assistant",
            contents=[
                AFContent.from_mcp_server_tool_call(
                    call_id="m1", tool_name="search", server_name="srv", arguments={"q": "x"}
                ),
                AFContent.from_code_interpreter_tool_call(
                    call_id="ci1", inputs=[AFContent.from_text("print(1)")]
                ),
                AFContent.from_function_approval_request(id="ap1", function_call=call),
            ],
        ),
    ]
    with caplog.at_level(logging.WARNING, "handoff_codec"):
        items = a2a.to_items(conversation)
    assert "function_approval_request" in caplog.text
    calls = {i["call_id"] for i in items if i.get("type", "").endswith("_call")}
    results = {i["call_id"] for i in items if i.get("type", "").endswith("_result")}
    assert calls == results == {"m1", "ci1"}
    assert "additional_properties" not in str(items)


# ---------------------------------------------------------------- PydanticAI retry prompts


def _retry(part: Any) -> list[Any]:
    call = pai.ToolCallPart(tool_name="f", args={"a": 1}, tool_call_id="c1")
    return [
        pai.ModelRequest(parts=[pai.UserPromptPart(content="hi")]),
        pai.ModelResponse(parts=[call]),
        pai.ModelRequest(parts=[part]),
        pai.ModelResponse(parts=[pai.TextPart(content="ok")]),
    ]


def test_a_retry_prompt_is_its_call_s_result_as_pydantic_ai_sends_it() -> None:
    part = pai.RetryPromptPart(content="a must be > 1", tool_name="f", tool_call_id="c1")
    items = a2a.to_items(_retry(part))
    (result,) = [i for i in items if i.get("type") == "function_call_output"]
    assert result == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": part.model_response(),
    }


@pytest.mark.parametrize(
    "part",
    [
        pai.RetryPromptPart(content="need JSON"),
        pai.RetryFeedbackPart(content="need JSON", retry=pai.RetryInfo(cause="output_validation")),
    ],
    ids=["retry prompt with no tool", "retry feedback"],
)
def test_output_retry_feedback_is_a_user_message_as_pydantic_ai_sends_it(part: Any) -> None:
    items = a2a.to_items(_retry(part))
    assert {"role": "user", "content": part.model_response()} in items
    assert not any(i.get("type") == "pydantic_ai_part" for i in items)


# ---------------------------------------------------------------- text the wire cannot carry


@pytest.mark.parametrize("field", ["content", "prompt", "agent"])
def test_a_lone_surrogate_is_an_encode_error(field: str) -> None:
    items = [{"role": "user", "content": "a\ud800b" if field == "content" else "ok"}]
    kwargs = {field: "a\udc00b"} if field != "content" else {}
    with pytest.raises(EncodeError):
        a2a.pack(items, **kwargs)


# ---------------------------------------------------------------- file parts by URL


def _files(*parts: Part) -> a2a.Unpacked:
    return a2a.unpack(Message(message_id="m", context_id="c", role=Role.ROLE_USER, parts=parts))


def test_pydantic_ai_keeps_a_url_file_s_media_type_and_name() -> None:
    unpacked = _files(
        Part(
            url="https://files.example.com/dl?id=7", media_type="application/pdf", filename="i.pdf"
        ),
        Part(url="https://files.example.com/img", media_type="IMAGE/PNG"),
    )
    _, (document, image) = a2a.pydantic_ai_input(unpacked)
    assert isinstance(document, pai.DocumentUrl) and document.media_type == "application/pdf"
    assert document.identifier == "i.pdf"
    assert isinstance(image, pai.ImageUrl) and image.media_type.lower() == "image/png"


def test_adk_takes_a_url_with_no_media_type(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "handoff_codec"):
        _, content = a2a.google_adk_input(
            _files(Part(url="https://x.example/dl?id=7"), Part(url="https://x.example/a.pdf"))
        )
    types = [p.file_data.mime_type for p in content.parts or [] if p.file_data]
    assert types == ["application/octet-stream", "application/pdf"]
    assert "application/octet-stream" in caplog.text


def test_an_empty_url_is_left_out_and_reported_for_every_receiver() -> None:
    unpacked = _files(Part(text="look"), Part(url=""))
    assert [o.field for o in unpacked.omitted] == ["url"]
    assert a2a.agent_framework_messages(unpacked)[0].text == "look"
    assert len(a2a.google_adk_input(unpacked)[1].parts or []) == 1
    assert a2a.pydantic_ai_input(unpacked)[1] == ["look"]


def test_adk_own_executor_with_the_converter_answers_a_url_with_no_media_type() -> None:
    executor, llm, _ = adk_b(["answer"])
    message = Message(
        message_id="m",
        context_id="ctx",
        role=Role.ROLE_USER,
        parts=[Part(text="What is in it?"), Part(url="https://files.example.com/dl?id=7")],
    )
    assert asyncio.run(send(app(executor), message)) == "answer"
    assert len(llm.sent) == 1


_KEYS = st.text(min_size=1, max_size=10).filter(
    lambda k: k not in {"role", "name", "content", "type", "call_id", "arguments", "output", "text"}
)


@examples(100)
@given(
    extra=st.lists(st.tuples(st.integers(0, 4), _KEYS), max_size=6),
    role=st.sampled_from(["user", "assistant", "User", "ASSISTANT"]),
)
def test_no_field_outside_the_allow_list_goes_over_the_wire(
    extra: list[tuple[int, str]], role: str
) -> None:
    """Whatever keys a framework adds to an item or a content part, only the model-visible
    fields travel, and the content does."""
    items: list[dict[str, Any]] = [
        {"role": role, "content": [{"type": "input_text", "text": "hello"}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "r"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "why"}]},
        {"role": "assistant", "content": "bye"},
    ]
    for at, key in extra:
        target = (
            items[at]["content"][0]
            if at == 0
            else items[at]["summary"][0]
            if at == 3
            else items[at]
        )
        target[key] = S
    wire = MessageToJson(a2a.pack(items, prompt="p"))
    assert S not in wire
    kept = handoff_codec.loads(a2a.pack(items).parts[1].text)
    assert kept[0] == {"role": role.lower(), "content": [{"type": "input_text", "text": "hello"}]}
    assert [k.get("type") for k in kept[1:4]] == [
        "function_call",
        "function_call_output",
        "reasoning",
    ]
    assert kept[4] == {"role": "assistant", "content": "bye"}
