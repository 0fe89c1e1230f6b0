"""A summary whose content is a list of output_text parts (openai-agents-js) is a summary."""

from __future__ import annotations

import handoff_codec
from handoff_codec.format.content import as_text_message, summary_text

ITEMS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
TEXT = handoff_codec.dumps(ITEMS)


def js_message(text: str = TEXT, role: str = "assistant", **part: object) -> dict[str, object]:
    """The message openai-agents-js handoffHistory.ts writes."""
    return {"type": "message", "role": role, "status": "completed",
            "content": [{"type": "output_text", "text": text, **part}]}


def test_summary_text_of_each_content_shape() -> None:
    assert summary_text(TEXT) == TEXT
    parts = [{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}]
    assert summary_text(parts) == "ab"
    assert summary_text([{"type": "output_text", "text": TEXT, "annotations": []}]) == TEXT
    cited = [{"type": "output_text", "text": TEXT, "annotations": [{"type": "url_citation"}]}]
    for content in (None, [], [{"type": "input_text", "text": TEXT}],
                    [{"type": "refusal", "refusal": "x"}], cited,
                    [{"type": "output_text", "text": 1}],
                    [{"type": "output_text", "text": "x", "extra": 1}], ["text"], {"text": TEXT}):
        assert summary_text(content) is None, content


def test_as_text_message_changes_only_the_content() -> None:
    message = js_message()
    assert as_text_message(message) == {**message, "content": TEXT}
    plain = {"role": "assistant", "content": TEXT}
    assert as_text_message(plain) is plain


def test_flatten_expands_a_summary_given_as_output_text_parts() -> None:
    assert handoff_codec.flatten([{"role": "user", "content": "before"}, js_message()]) == [
        {"role": "user", "content": "before"}, *ITEMS]
    report = handoff_codec.format.default_codec.flatten_report([js_message()])
    assert [d.expanded for d in report.decisions] == [True]


def test_flatten_never_expands_user_content_or_annotated_output() -> None:
    for message in (js_message(role="user"), js_message(role="system"),
                    js_message(annotations=[{"type": "url_citation", "url": "https://x"}]),
                    {"role": "user", "content": [{"type": "input_text", "text": TEXT}]}):
        assert handoff_codec.flatten([message]) == [message]


def test_flatten_keeps_a_list_content_message_that_is_no_summary() -> None:
    message = js_message(text="just an answer")
    assert handoff_codec.flatten([message]) == [message]
