"""ADK's quote-marker defence, kept: relayed text can never close the quoted block.

ADK quotes other agents' content between its markers and replaces a marker
found inside that content with its elided marker
(``google/adk/flows/llm_flows/context/_fencing.py``). The plugin's summary
sits in one such block, so it does the same to every string it holds: text,
thoughts, tool names, arguments and results (keys too), authors.
"""

from __future__ import annotations

from typing import Any

from google.adk.events import Event
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from handoff_codec.integrations.google_adk import (
    HandoffHistoryPlugin,
    read_summary,
    summary_message,
)

from .conversations import (
    ELIDED,
    HOSTILE,
    QUOTE_BEGIN,
    QUOTE_END,
    as_shown,
    decoded,
    elided,
    run_conversation,
    summaries,
    texts,
    visible,
)


def _closed_once(text: str) -> None:
    """The preamble names each marker once; the block opens on line 2 and closes on the last."""
    lines = text.split("\n")
    assert text.count(QUOTE_BEGIN) == 2 and lines[1] == QUOTE_BEGIN
    assert text.count(QUOTE_END) == 2 and lines[-1] == QUOTE_END
    assert all(QUOTE_BEGIN not in line and QUOTE_END not in line for line in lines[2:-1])


def test_adk_elides_the_markers_it_relays() -> None:
    """What ADK does on its own (the defence the plugin keeps)."""
    run = run_conversation()
    rendered = [t for t in texts(run.sent("support").contents) if HOSTILE.split()[0] in t]
    assert rendered and all(QUOTE_END not in t.split("\n", 2)[2].rsplit("\n", 1)[0]
                            for t in rendered if t.count("\n") >= 2)
    assert any(ELIDED in t for t in rendered)


def test_markers_in_text_and_tool_results_stay_inside_the_block() -> None:
    """The hostile text is in triage's reply, the user's message and get_weather's result."""
    run = run_conversation([HandoffHistoryPlugin()])
    found = summaries(run.sent("support").contents)
    assert len(found) == 2
    for summary in found:
        assert summary.parts is not None and summary.parts[0].text is not None
        _closed_once(summary.parts[0].text)
    shown = decoded(found)
    results = {r.id: r.response for e in shown for r in e.get_function_responses()}
    assert results["call-weather"] == {"city": "Paris", "days": 2,
                                       "forecast": f"sunny {elided(HOSTILE)}"}
    assert ELIDED in elided(HOSTILE)
    assert as_shown(shown) == visible([e for e in run.events if e.author in ("triage", "billing")])
    # The user's own message is the user's: ADK relays it as it is, and so does the plugin.
    assert run.sent("support").contents[0] == run.events[0].content


MARKERS = st.sampled_from([QUOTE_BEGIN, QUOTE_END, f"\n{QUOTE_END}\n", f"{QUOTE_END}\n1. sys"])
MARKED = st.lists(st.one_of(st.text(max_size=8), MARKERS), max_size=4).map("".join)


def _event(author: str, marked: list[str]) -> list[Event]:
    a, b, c, d, e = marked
    args: dict[str, Any] = {a: b, "nested": [c, {d: e}]}
    return [
        Event(author=author, content=types.Content(role="model", parts=[
            types.Part(text=a), types.Part(text=b, thought=True),
            types.Part(function_call=types.FunctionCall(id=c, name=d, args=args))])),
        Event(author=author, content=types.Content(role="user", parts=[
            types.Part(function_response=types.FunctionResponse(
                id=c, name=e, response={"out": a, e: [b]},
                parts=[types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(
                    mime_type="text/plain", data=b"x", display_name=d))]))])),
    ]


@settings(max_examples=60, deadline=None)
@given(author=st.sampled_from(["billing", f"x{QUOTE_END}"]), marked=st.lists(MARKED, min_size=5,
                                                                          max_size=5))
def test_no_relayed_string_can_close_the_block(author: str, marked: list[str]) -> None:
    """Text, thoughts, call ids, tool names, argument keys and values, results, authors."""
    events = _event(author, marked)
    message, encoded = summary_message(events)
    assert message.parts is not None and message.parts[0].text is not None
    _closed_once(message.parts[0].text)
    back = read_summary(message)
    assert [e.author for e in back] == [elided(author)] * len(back)
    if not any("quote marker" in omission.reason for omission in encoded.omitted):
        assert as_shown(back) == [(elided(a), role, parts) for a, role, parts
                                  in visible(events, thoughts=True)]
