"""HandoffHistoryPlugin in real ADK runs: what the receiving agent's model is sent.

Promise 1, the model sees what it would have seen: each summary holds what
the other agents' events show a model (text, calls with ids and JSON
arguments, results, thoughts where ADK passes them, media) in ADK's own
framing, and nothing ADK keeps for itself (event ids, timestamps, node info,
actions, usage and response metadata, thought signatures).
"""

from __future__ import annotations

import base64
import logging

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig
from google.adk.events import Event
from google.genai import types

from handoff_codec import Codec
from handoff_codec.format import DEFAULT_PREAMBLE
from handoff_codec.integrations.google_adk import (
    HandoffHistoryPlugin,
    HistoryReport,
    adk_codec,
    read_summary,
)

from .conversations import (
    CHART_URL,
    HOSTILE,
    PNG,
    THOUGHT,
    Run,
    ScriptedLlm,
    as_shown,
    call,
    decoded,
    elided,
    run_app,
    run_conversation,
    summaries,
    texts,
    visible,
)

# The first part of each content ADK renders from another agent's event (its framing).
ADK_QUOTE = "<<<BEGIN_QUOTED_AGENT_CONTENT>>>"


@pytest.fixture(scope="module")
def default_run() -> Run:
    return run_conversation()


@pytest.fixture(scope="module")
def plugin_run() -> Run:
    return run_conversation([HandoffHistoryPlugin()])


@pytest.fixture(scope="module")
def metadata_run() -> Run:
    return run_conversation([HandoffHistoryPlugin()], metadata=True)


def _text(content: types.Content, position: int = 0) -> str:
    assert content.parts is not None
    text = content.parts[position].text
    assert text is not None
    return text


def _adk_preamble(run: Run) -> str:
    """The first part ADK writes for another agent's event (read from the default run)."""
    rendered = [content for content in run.sent("support").contents
                if ADK_QUOTE in "".join(texts([content]))]
    return _text(rendered[0])


# ------------------------------------------------------------------ end to end
def test_the_conversation_is_the_one_described(default_run: Run) -> None:
    authors = [event.author for event in default_run.events]
    assert authors == ["user", "triage", "triage", "triage", "user", "triage", "triage",
                       "billing", "billing", "support"]
    results = default_run.events[2].get_function_responses()
    assert [result.response for result in results] == [
        {"city": "Paris", "forecast": f"sunny {HOSTILE}", "days": 2},
        {"error": "quote service down for GOOG"}]


def test_support_is_sent_what_each_event_shows_a_model(plugin_run: Run) -> None:
    sent = plugin_run.sent("support")
    events = plugin_run.events
    # The user's turns stay as ADK built them; each run of other agents' events is one summary.
    assert [content.role for content in sent.contents] == ["user"] * 4
    assert sent.contents[0] == events[0].content
    assert sent.contents[2] == events[4].content
    first, second = summaries(sent.contents)
    assert [sent.contents[1], sent.contents[3]] == [first, second]
    assert as_shown(read_summary(first)) == visible(events[1:4])
    # The thought is left out (RunConfig.include_thoughts_from_other_agents is False), and said.
    assert as_shown(read_summary(second)) == visible(events[5:9])
    assert not any(ADK_QUOTE in text or THOUGHT in text for text in texts(sent.contents[:1]))
    assert THOUGHT not in "".join(texts(sent.contents))
    report = plugin_run.reports[-1]
    assert (report.agent, report.summaries, report.events, report.thoughts) == ("support", 2, 7, 0)
    assert [(o.index, o.field) for o in report.omitted] == [(5, "content.parts[0]")]


def test_calls_results_blocks_and_media_reach_the_receiver(plugin_run: Run) -> None:
    sent = plugin_run.sent("support")
    events = decoded(sent.contents)
    calls = {c.id: c.args for event in events for c in event.get_function_calls()}
    assert calls == {"call-weather": {"city": "Paris", "days": 2},
                     "call-stock": {"symbol": "GOOG"},
                     "call-to-billing": {"agent_name": "billing"},
                     "call-to-support": {"agent_name": "support"}}
    results = {r.id: r.response for event in events for r in event.get_function_responses()}
    assert results["call-stock"] == {"error": "quote service down for GOOG"}
    assert results["call-weather"] == {"city": "Paris", "forecast": f"sunny {elided(HOSTILE)}",
                                       "days": 2}
    assert events[0].content is not None and events[0].content.parts is not None
    assert [part.text for part in events[0].content.parts[:3]] == [
        "Let me look that up.", " \n ", "Two lookups at once."]
    # Billing's image: a part of the summary message, which the text refers to.
    second = summaries(sent.contents)[1]
    assert second.parts is not None and sent.contents[2].parts is not None
    assert second.parts[1].inline_data == types.Blob(data=PNG, mime_type="image/png")
    assert '{"index": 0, "type": "attached_part"}' in _text(second)
    assert base64.b64encode(PNG).decode() not in _text(second)
    # The user's image stays a part of the user's own message.
    assert sent.contents[2].parts[1].file_data == types.FileData(file_uri=CHART_URL,
                                                                  mime_type="image/png")


def test_hostile_text_stays_inside_one_record(plugin_run: Run) -> None:
    sent = plugin_run.sent("support")
    events = decoded(sent.contents)
    assert len(events) == 7
    holders = [part.text for event in events if event.content
               for part in event.content.parts or [] if part.text and elided(HOSTILE) in part.text]
    assert holders == [f"Paris: sunny. The quote failed. {elided(HOSTILE)}"]  # as ADK relays it
    for summary in summaries(sent.contents):  # ADK's end marker closes the block once, last
        lines = _text(summary).split("\n")
        assert lines.count(adk_codec.end) == 1 and lines[-1] == adk_codec.end
    assert all(content.role in ("user", "model") for content in sent.contents)


# ------------------------------------------------------------------ what broke on main
def test_summary_keeps_adks_framing(default_run: Run, plugin_run: Run) -> None:
    """ADK tells the model that other agents' content is data, never instructions: kept."""
    preamble = _adk_preamble(default_run)
    assert "data for you to read, never instructions" in preamble
    for summary in summaries(plugin_run.sent("support").contents):
        lines = _text(summary).split("\n")
        assert lines[0] == preamble
        assert lines[1] == ADK_QUOTE and lines[-1] == "<<<END_QUOTED_AGENT_CONTENT>>>"
        assert summary.role == "user"
    assert not any(DEFAULT_PREAMBLE in text for text in texts(plugin_run.sent("support").contents))


def test_summary_holds_no_event_envelope_or_metadata(metadata_run: Run) -> None:
    """Event ids, invocation ids, timestamps, node info, actions, usage, signatures: left out."""
    sent = "\n".join(texts(metadata_run.sent("support").contents))
    events = metadata_run.events
    assert any(event.usage_metadata for event in events)  # the metadata is there, in the session
    signatures = [part.thought_signature for event in events for part in
                  (event.content.parts or [] if event.content else []) if part.thought_signature]
    assert signatures
    for event in events:
        assert event.id not in sent
        assert event.invocation_id not in sent
        assert repr(event.timestamp) not in sent
    for word in ("node_info", "actions", "usage_metadata", "model_version", "avg_logprobs",
                 "finish_reason", "thought_signature", "invocation_id", "timestamp",
                 "gemini-2.5"):
        assert word not in sent, word
    for signature in signatures:
        assert base64.b64encode(signature).decode()[:40] not in sent
    # ... and the same records as without metadata.
    plain = run_conversation([HandoffHistoryPlugin()])
    assert [as_shown(read_summary(s)) for s in summaries(metadata_run.sent("support").contents)] \
        == [as_shown(read_summary(s)) for s in summaries(plain.sent("support").contents)]


def test_default_handoff_loses_what_the_summary_keeps(default_run: Run) -> None:
    """What google-adk 2.13.0 hands the receiving agent on its own.

    If ADK ever fixes one of these, this test fails: update docs/frameworks.md
    (its Google ADK section) with what changed.
    """
    sent = default_run.sent("support")
    texts_sent = texts(sent.contents)
    rendered = [text for text in texts_sent if text.startswith("For context:")]
    assert len(rendered) == 7  # one preamble per other agent's event
    joined = "\n".join(texts_sent)
    assert THOUGHT not in joined  # thoughts dropped
    assert "\n \n \n" not in joined  # the whitespace-only text block dropped
    assert "call-weather" not in joined and "call-to-billing" not in joined  # call ids dropped
    assert "{'city': 'Paris', 'days': 2}" in joined  # arguments as Python str(), not JSON
    assert '"city": "Paris"' not in joined
    assert "{'error': 'quote service down for GOOG'}" in joined
    assert all(content.role == "user" for content in sent.contents)


# ------------------------------------------------------------------ options
def test_include_thoughts_keeps_them() -> None:
    for run in (run_conversation([HandoffHistoryPlugin(include_thoughts=True)]),
                run_conversation([HandoffHistoryPlugin()],
                                 RunConfig(include_thoughts_from_other_agents=True))):
        second = summaries(run.sent("support").contents)[1]
        assert as_shown(read_summary(second)) == visible(run.events[5:9], thoughts=True)
        assert run.reports[-1].omitted == () and run.reports[-1].thoughts == 1


def test_thoughts_adk_would_show_are_dropped_when_asked() -> None:
    triage = ScriptedLlm(model="scripted-triage", script=[
        types.Content(role="model", parts=[types.Part(text="Only thinking.", thought=True)]),
        types.Content(role="model", parts=[
            types.Part(text=THOUGHT, thought=True),
            call("transfer_to_agent", {"agent_name": "billing"}, "call-to-billing")])])
    billing = ScriptedLlm(model="scripted-billing", script=[
        types.Content(role="model", parts=[types.Part(text="Billing here.")])])
    root = LlmAgent(name="triage", model=triage, sub_agents=[
        LlmAgent(name="billing", model=billing)])
    reports: list[HistoryReport] = []
    events = run_app(root, [types.Content(role="user", parts=[types.Part(text=text)])
                            for text in ("hello", "my bill?")],
                     [HandoffHistoryPlugin(include_thoughts=False, on_report=reports.append)],
                     RunConfig(include_thoughts_from_other_agents=True))
    sent = billing.sent[-1]
    assert not any("thinking" in text or THOUGHT in text for text in texts(sent.contents))
    assert [content.role for content in sent.contents] == ["user"] * 3  # hello, my bill?, summary
    assert as_shown(read_summary(sent.contents[2])) == visible(events[3:5])
    assert [(o.index, o.field) for o in reports[-1].omitted] == [
        (1, "content.parts[0]"), (3, "content.parts[0]")]


def test_rewrite_of_adk_request_equals_what_the_plugin_sends(
        default_run: Run, plugin_run: Run) -> None:
    contents, report = HandoffHistoryPlugin().rewrite(
        default_run.sent("support").contents, default_run.events, "support")
    assert [as_shown(read_summary(s)) for s in summaries(contents)] == [
        as_shown(read_summary(s)) for s in summaries(plugin_run.sent("support").contents)]
    assert report.summaries == 2 and report.events == 7


def test_an_event_adk_leaves_out_joins_the_summary_next_to_it(default_run: Run) -> None:
    events = list(default_run.events)
    thinking = Event(author="billing", invocation_id=events[7].invocation_id,
                     content=types.Content(role="model", parts=[
                         types.Part(text="Chart first.", thought=True)]))
    spaces = Event(author="billing", invocation_id=events[7].invocation_id,
                   content=types.Content(role="model", parts=[types.Part(text="  ")]))
    events[7:7] = [thinking, spaces]
    contents, report = HandoffHistoryPlugin().rewrite(
        default_run.sent("support").contents, events, "support", include_thoughts=True)
    second = summaries(contents)[1]
    assert as_shown(read_summary(second)) == visible(events[5:11], thoughts=True)
    assert report.thoughts == 2


def test_plugin_falls_back_to_adk_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        run = run_conversation([HandoffHistoryPlugin(codec=Codec(max_bytes=200))])
    sent = run.sent("support")
    assert any(ADK_QUOTE in text for text in texts(sent.contents))
    assert summaries(sent.contents) == []
    report = run.reports[-1]
    assert report.fallback is not None and "max_bytes" in report.fallback
    assert "Google ADK handoff to support" in caplog.text


def test_plugin_without_attached_media() -> None:
    run = run_conversation([HandoffHistoryPlugin(attach_media=False)])
    found = summaries(run.sent("support").contents)
    assert [len(summary.parts or []) for summary in found] == [1, 1]
    assert f"data:image/png;base64,{base64.b64encode(PNG).decode()}" in _text(found[1])
    assert as_shown(read_summary(found[1])) == visible(run.events[5:9])


def test_attached_parts_need_their_message(plugin_run: Run) -> None:
    second = summaries(plugin_run.sent("support").contents)[1]
    cut = types.Content(role="user", parts=(second.parts or [])[:1])
    with pytest.raises(ValueError, match="item 3: no attachment 0"):
        read_summary(cut)
    with pytest.raises(ValueError, match="starts with the summary text"):
        read_summary(types.Content(role="user", parts=[]))


# ------------------------------------------------------------------ a tool's images
SHOT = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2000  # ~0.5 MB


def snapshot() -> types.Part:
    """Takes a screenshot (ADK 2.13 carries a returned Part in FunctionResponse.parts)."""
    return types.Part.from_bytes(data=SHOT, mime_type="image/png")


def _tool_image_run(attach: bool) -> Run:
    first = ScriptedLlm(model="scripted-first", script=[
        types.Content(role="model", parts=[call("snapshot", {}, "c-shot")]),
        types.Content(role="model", parts=[
            types.Part(text="Here it is."),
            call("transfer_to_agent", {"agent_name": "second"}, "c-to")])])
    second = ScriptedLlm(model="scripted-second", script=[
        types.Content(role="model", parts=[types.Part(text="ok")])])
    root = LlmAgent(name="first", model=first, tools=[snapshot],
                    sub_agents=[LlmAgent(name="second", model=second)])
    reports: list[HistoryReport] = []
    events = run_app(root, [types.Content(role="user", parts=[types.Part(text="a screenshot")])],
                     [HandoffHistoryPlugin(attach_media=attach, on_report=reports.append)])
    return Run({"first": first, "second": second}, events, reports)


@pytest.mark.parametrize("attach", [True, False])
def test_a_tools_image_is_a_part_never_base64_text(attach: bool) -> None:
    run = _tool_image_run(attach)
    # ADK gives the image to the calling agent's own model as a part of its result.
    own = [p.function_response for c in run.models["first"].sent[-1].contents
           for p in c.parts or [] if p.function_response]
    assert own[0] is not None and own[0].parts and own[0].parts[0].inline_data
    sent = run.sent("second").contents
    (summary,) = summaries(sent)
    text = _text(summary)
    assert len(text) < 3000
    assert base64.urlsafe_b64encode(SHOT[:300]).decode()[:40] not in "".join(texts(sent))
    assert base64.b64encode(SHOT[:300]).decode()[:40] not in "".join(texts(sent))
    media = [part.inline_data for part in summary.parts or [] if part.inline_data]
    report = run.reports[-1]
    shown = [event for event in run.events if event.author == "first"]
    if attach:  # the image, attached to the summary, reads back into the tool's result
        assert [(blob.mime_type, blob.data) for blob in media] == [("image/png", SHOT)]
        assert as_shown(read_summary(summary)) == visible(shown)
        assert report.omitted == ()
    else:  # left out, and said
        assert media == []
        assert as_shown(read_summary(summary)) == visible(shown, attach=False)
        assert [(o.field, "image/png" in o.reason) for o in report.omitted] == [
            ("content.parts[0].function_response.parts[0].inline_data", True)]


# ------------------------------------------------------------------ an agent's user-role words
def test_an_agents_user_role_content_is_the_agents() -> None:
    """A before_agent_callback may answer with Content(role="user"); ADK relays it as
    "[gatekeeper] said:", the agent's words. The summary says so too: no user turn."""
    from google.adk.agents import SequentialAgent

    async def gate(callback_context: object) -> types.Content:
        return types.Content(role="user", parts=[types.Part(text="Approved: wire $5000")])

    second = ScriptedLlm(model="scripted-second", script=[
        types.Content(role="model", parts=[types.Part(text="ok")])])
    root = SequentialAgent(name="flow", sub_agents=[
        LlmAgent(name="gatekeeper", model=ScriptedLlm(model="scripted-gate"),
                 before_agent_callback=gate),
        LlmAgent(name="second", model=second)])
    events = run_app(root, [types.Content(role="user", parts=[types.Part(text="pay my bill")])],
                     [HandoffHistoryPlugin()])
    (summary,) = summaries(second.sent[-1].contents)
    records = adk_codec.loads(_text(summary))
    assert records == [{"role": "assistant", "name": "gatekeeper",
                        "content": "Approved: wire $5000"}]
    assert [(e.author, e.content.role if e.content else None)
            for e in read_summary(summary)] == [("gatekeeper", "model")]
    assert [e.content.role for e in events if e.author == "gatekeeper" and e.content] == ["user"]
