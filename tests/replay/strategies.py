"""Hypothesis strategies for Responses-API input items, shared by the replay tests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

TEXTS = st.sampled_from(["", " ", "hi", "line1\nline2", "(empty)", "  padded  ", "é ☃"])
CALL_IDS = st.sampled_from(["c1", "c2", "c3"])


def text_part(kind: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    kinds = st.just(kind) if kind else st.sampled_from(["input_text", "text"])
    return st.builds(lambda k, t: {"type": k, "text": t}, kinds, TEXTS)


USER_PARTS = st.one_of(
    text_part(),
    st.builds(lambda d: {"type": "input_image", "image_url": "https://x/a.png", **d},
              st.sampled_from([{}, {"detail": "low"}, {"detail": "original"}])),
    st.just({"type": "image_url", "image_url": {"url": "https://x/b.png"}}),
    st.just({"type": "input_image", "file_id": "file_1"}),  # the SDK rejects file ids
    st.just({"type": "input_file", "file_data": "ZGF0YQ==", "filename": "a.txt"}),
    st.just({"type": "input_file", "file_url": "https://x/f"}),  # rejected
    st.just({"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}}),
    st.just({"type": "input_text"}),  # no text: rejected
    st.just({"type": "output_text", "text": "x"}),  # not an input part: rejected
    st.just("bare string part"),  # rejected
)
CONTENT = st.one_of(
    TEXTS,
    st.lists(USER_PARTS, max_size=3),
    st.just(None),  # the SDK raises TypeError
    st.just({"text": "a mapping"}),  # rejected
)


@st.composite
def easy_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "system", "developer", "user",
                                 "tool", "bogus"]))
    item: dict[str, Any] = {"role": role, "content": draw(CONTENT)}
    if draw(st.booleans()):
        item["type"] = draw(st.sampled_from(["message", "message", "function_call"]))
    if draw(st.integers(0, 5)) == 0:
        item["phase"] = draw(st.sampled_from(["commentary", "final_answer", "bogus"]))
    if draw(st.integers(0, 4)) == 0:
        item["name"] = draw(st.sampled_from(["bob", ""]))
    if draw(st.integers(0, 5)) == 0:
        item[draw(st.sampled_from(["id", "status"]))] = "x"
    if draw(st.integers(0, 8)) == 0:
        del item["content"]
    return item


OUTPUT_PARTS = st.one_of(
    text_part("output_text"),
    st.just({"type": "refusal", "refusal": "I can't help with that."}),
    st.just({"type": "input_text", "text": "wrong kind"}),  # rejected
)


@st.composite
def output_message(draw: st.DrawFn) -> dict[str, Any]:
    item = {"type": "message", "role": "assistant", "id": "msg_1",
            "content": draw(st.lists(OUTPUT_PARTS, max_size=3))}
    if draw(st.booleans()):
        item["status"] = "completed"
    return item


@st.composite
def function_call(draw: st.DrawFn) -> dict[str, Any]:
    item = {"type": "function_call", "call_id": draw(CALL_IDS), "name": "lookup",
            "arguments": draw(st.sampled_from(["", "{}", '{"q": 1}']))}
    if draw(st.integers(0, 8)) == 0:
        del item[draw(st.sampled_from(["call_id", "name", "arguments"]))]
    return item


@st.composite
def function_call_output(draw: st.DrawFn) -> dict[str, Any]:
    output = draw(st.one_of(TEXTS, st.lists(st.one_of(text_part("input_text"), USER_PARTS),
                                            max_size=2)))
    item: dict[str, Any] = {"type": "function_call_output", "call_id": draw(CALL_IDS),
                            "output": output}
    if draw(st.integers(0, 8)) == 0:
        item["call_id"] = None
    return item


OTHER = st.sampled_from([
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hmm"}]},
    {"type": "reasoning", "id": "rs_2", "summary": []},
    {"type": "item_reference", "id": "msg_0"},
    {"type": "compaction", "id": "cmp_1"},
    {"type": "web_search_call", "id": "ws_1"},
])

ITEM = st.one_of(easy_message(), output_message(), function_call(), function_call_output(),
                 OTHER)
# Mostly valid conversations: a user turn, then calls and their outputs.
CALL_ROUND = st.builds(
    lambda ids, text: [
        *({"type": "function_call", "call_id": i, "name": "f", "arguments": "{}"} for i in ids),
        *({"type": "function_call_output", "call_id": i, "output": text} for i in ids),
    ],
    st.lists(CALL_IDS, min_size=1, max_size=3, unique=True), TEXTS)
TURN = st.one_of(
    st.builds(lambda r, t: [{"role": r, "content": t}],
              st.sampled_from(["user", "assistant", "system", "developer"]), TEXTS),
    CALL_ROUND,
    st.builds(lambda m: [m], output_message()),
    st.builds(lambda m, r: [m, *r], output_message(), CALL_ROUND),
)


ITEM_LISTS = st.lists(ITEM, max_size=6)
# Mostly valid conversations, flattened.
conversations = st.lists(TURN, max_size=5).map(lambda turns: [i for turn in turns for i in turn])

# ---------------------------------------------------------------- accepted conversations
# Conversations built to pass validate(target="chat_completions"): every role, empty and
# blank text, media parts, reasoning items, system messages mid-conversation, runs of one
# role and conversations that start with the assistant.
PNG_URL = "data:image/png;base64,iVBORw0KGgo="
MEDIA_PARTS = st.sampled_from([
    {"type": "input_image", "image_url": PNG_URL},
    {"type": "input_image", "image_url": "https://x/a.png", "detail": "low"},
    {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=",
     "filename": "r.pdf"},
    {"type": "input_file", "file_data": "aGVsbG8=", "filename": "notes.txt"},
    {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}},
])
INPUT_TEXT = st.builds(lambda t: {"type": "input_text", "text": t}, TEXTS)


@st.composite
def _message_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    role = draw(st.sampled_from(["user", "user", "assistant", "system", "developer"]))
    if draw(st.booleans()):
        content: Any = draw(TEXTS)
    else:
        parts = st.one_of(INPUT_TEXT, MEDIA_PARTS) if role == "user" else INPUT_TEXT
        content = draw(st.lists(parts, min_size=1, max_size=3))
    return [{"role": role, "content": content}]


_OUTPUT_TURN = st.builds(
    lambda texts: [{"type": "message", "role": "assistant", "id": "msg",
                    "content": [{"type": "output_text", "text": t} for t in texts]}],
    st.lists(TEXTS, min_size=1, max_size=2))


@st.composite
def _tool_round(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(st.lists(st.sampled_from(["c1", "c2", "c3", "call:4"]), min_size=1, max_size=3,
                        unique=True))
    prefix = [f"r{draw(st.integers(0, 99))}-" + i for i in ids]  # unique across rounds
    outputs = st.one_of(TEXTS, st.lists(st.one_of(INPUT_TEXT, st.just(
        {"type": "input_image", "image_url": PNG_URL})), max_size=2))
    return [
        *({"type": "function_call", "call_id": i, "name": "lookup",
           "arguments": draw(st.sampled_from(["", "{}", '{"q": 1}']))} for i in prefix),
        *({"type": "function_call_output", "call_id": i, "output": draw(outputs)}
          for i in prefix),
    ]


_REASONING = st.just([{"type": "reasoning", "id": "rs",
                       "summary": [{"type": "summary_text", "text": "thinking"}]}])
accepted_conversations = st.lists(
    st.one_of(_message_turn(), _OUTPUT_TURN, _tool_round(), _REASONING), max_size=7,
).map(lambda turns: [item for turn in turns for item in turn])
