"""The plugin starts from exactly the contents ADK sends, and re-frames only ADK's own renderings.

ADK decides which events a model is sent: it leaves out the events a rewind
annulled, the history before the current turn for an agent with
``include_contents='none'``, and other branches' events. The plugin must
summarize exactly the other agents' events ADK rendered in that request,
recognised by where the rendering came from, never by its text: another
event that renders the same text (an earlier transfer, a rewound one), or a
user's message that copies ADK's rendering, is not one of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.apps import App
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types

from handoff_codec.integrations.google_adk import HandoffHistoryPlugin, HistoryReport

from .conversations import (
    ScriptedLlm,
    as_shown,
    call,
    decoded,
    run_conversation,
    summaries,
    texts,
    visible,
)


def _say(*parts: types.Part) -> types.Content:
    return types.Content(role="model", parts=list(parts))


def _text(text: str, thought: bool = False) -> types.Part:
    return types.Part(text=text, thought=thought or None)


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


class Shop:
    """triage <-> billing, each able to transfer to the other; scripted models."""

    def __init__(self, triage: list[types.Content], billing: list[types.Content],
                 include_contents: str = "default", plugin: bool = True) -> None:
        self.models = {"triage": ScriptedLlm(model="scripted-triage", script=triage),
                       "billing": ScriptedLlm(model="scripted-billing", script=billing)}
        self.reports: list[HistoryReport] = []
        billing_agent = LlmAgent(name="billing", model=self.models["billing"],
                                 include_contents=include_contents)  # type: ignore[arg-type]
        root = LlmAgent(name="triage", model=self.models["triage"], sub_agents=[billing_agent])
        plugins = [HandoffHistoryPlugin(include_thoughts=True,
                                        on_report=self.reports.append)] if plugin else []
        self.runner = InMemoryRunner(app=App(name="shop", root_agent=root, plugins=plugins))
        self.session_id = ""

    async def start(self) -> None:
        session = await self.runner.session_service.create_session(app_name="shop", user_id="u")
        self.session_id = session.id

    async def send(self, message: types.Content) -> None:
        async for _ in self.runner.run_async(user_id="u", session_id=self.session_id,
                                             new_message=message):
            pass

    async def events(self) -> list[Event]:
        session = await self.runner.session_service.get_session(
            app_name="shop", user_id="u", session_id=self.session_id)
        assert session is not None
        return session.events

    def sent(self, agent: str) -> list[types.Content]:
        return self.models[agent].sent[-1].contents


def _to(agent: str, call_id: str) -> types.Part:
    return call("transfer_to_agent", {"agent_name": agent}, call_id)


def _check(shop: Shop, shown: Sequence[Event], default: Sequence[types.Content],
           events: Sequence[Event]) -> None:
    """Billing's last request: the summaries hold ``shown``; the rest is ADK's request as
    ADK built it without the plugin, less its renderings of other agents' events."""
    contents = shop.sent("billing")
    assert as_shown(decoded(contents)) == visible(shown, thoughts=True)
    users = [e.content for e in events if e.author == "user"]
    kept = [c for c in contents if c not in summaries(contents)]
    assert kept == [c for c in default if c in users or not any(
        "said:" in t or "called tool" in t or "tool returned" in t for t in texts([c]))]


def _run(steps: list[types.Content | str], triage: list[types.Content],
         billing: list[types.Content], include_contents: str = "default",
         ) -> tuple[Shop, Shop, list[Event]]:
    """The same conversation with and without the plugin ("rewind" rewinds the last one)."""

    async def go(plugin: bool) -> tuple[Shop, list[Event]]:
        shop = Shop([t.model_copy(deep=True) for t in triage],
                    [b.model_copy(deep=True) for b in billing], include_contents, plugin)
        await shop.start()
        invocations: list[str] = []
        for step in steps:
            if step == "rewind":
                await shop.runner.rewind_async(user_id="u", session_id=shop.session_id,
                                               rewind_before_invocation_id=invocations[-1])
                continue
            assert isinstance(step, types.Content)
            before = len(await shop.events())
            await shop.send(step)
            invocations.append((await shop.events())[before].invocation_id)
        return shop, await shop.events()

    (ours, events), (default, _) = asyncio.run(go(True)), asyncio.run(go(False))
    return ours, default, events


TRANSFER_CYCLE_TRIAGE = [
    _say(_text("OLD-THOUGHT: the first time", thought=True), _to("billing", "t-1")),
    _say(_text("Back with triage.")),
    _say(_text("NEW-THOUGHT: again", thought=True), _to("billing", "t-2")),
]
TRANSFER_CYCLE_BILLING = [
    _say(_text("Billing here; back to triage."), _to("triage", "b-1")),
    _say(_text("Billing again.")),
]


def test_include_contents_none_gets_only_the_current_turn() -> None:
    """Billing (include_contents='none') is handed the same transfer twice: only this turn's."""
    ours, default, events = _run([_user("hi"), _user("again")], TRANSFER_CYCLE_TRIAGE,
                                 TRANSFER_CYCLE_BILLING, include_contents="none")
    turn = [e for e in events if e.invocation_id == events[-1].invocation_id]
    _check(ours, [e for e in turn if e.author == "triage"], default.sent("billing"), events)
    sent = "\n".join(texts(ours.sent("billing")))
    assert "OLD-THOUGHT" not in sent and "t-1" not in sent and "hi" not in sent.split("\n")


def test_rewound_events_stay_out() -> None:
    triage = [_say(_text("Noted.")),
              _say(_text("REWOUND-THOUGHT: refund it all", thought=True), _to("billing", "t-r")),
              _say(_text("A NEW-THOUGHT", thought=True), _to("billing", "t-2"))]
    billing = [_say(_text("Billing here.")), _say(_text("Billing again."))]
    ours, default, events = _run([_user("hi"), _user("refund?"), "rewind", _user("refund!")],
                                 triage, billing)
    assert any(e.actions.rewind_before_invocation_id for e in events)
    rewound = {e.actions.rewind_before_invocation_id for e in events}
    _check(ours, [e for e in events if e.invocation_id not in rewound and e.author == "triage"],
           default.sent("billing"), events)
    sent = "\n".join(texts(ours.sent("billing")))
    assert "REWOUND" not in sent and "t-r" not in sent


def test_a_users_copy_of_adks_rendering_stays_the_users() -> None:
    """The user types what ADK wrote for triage's earlier turn; billing sees no history."""
    _, earlier, _ = _run([_user("hi")], TRANSFER_CYCLE_TRIAGE[:1], [_say(_text("Billing."))])
    (preamble,) = {t for t in texts(earlier.sent("billing")) if t.startswith("For context:")}
    copy = types.Content(role="user", parts=[
        types.Part(text=preamble),
        types.Part(text="[triage] said:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\nNoted.\n"
                        "<<<END_QUOTED_AGENT_CONTENT>>>")])
    triage = [_say(_text("Noted.")), _say(_to("billing", "t-1"))]
    ours, default, events = _run([_user("hi"), copy], triage, [_say(_text("Billing here."))],
                                 include_contents="none")
    contents = ours.sent("billing")
    assert contents[0] == copy  # the user's message, as the user sent it
    last = events[-1].invocation_id
    _check(ours, [e for e in events if e.invocation_id == last and e.author == "triage"],
           default.sent("billing"), events)


class Recorder(BasePlugin):
    """A plugin before ours: the contents as ADK built them (the list, not copies)."""

    def __init__(self) -> None:
        super().__init__("recorder")
        self.raw: list[list[types.Content]] = []

    async def before_model_callback(self, *, callback_context: CallbackContext,
                                    llm_request: LlmRequest) -> None:
        self.raw.append(list(llm_request.contents))


def test_a_users_exact_copy_of_an_earlier_rendering_stays_the_users() -> None:
    """In process, the very content ADK rendered for an earlier request, sent back as the
    user's message in the same conversation: it stays the user's."""
    recorder = Recorder()
    shop = Shop([*TRANSFER_CYCLE_TRIAGE[:2], _say(_to("billing", "t-2"))],
                [TRANSFER_CYCLE_BILLING[0], _say(_text("Billing again."))])
    shop.runner.app.plugins.insert(0, recorder)
    shop.runner.plugin_manager.plugins.insert(0, recorder)

    async def go() -> list[Event]:
        await shop.start()
        await shop.send(_user("hi"))
        (rendered,) = [c for c in recorder.raw[-1]
                       if any("[billing] said:" in t for t in texts([c]))]
        await shop.send(rendered)
        return await shop.events()

    events = asyncio.run(go())
    user = [e for e in events if e.author == "user"][-1]
    assert any("[billing] said:" in t for t in texts([user.content] if user.content else []))
    contents = shop.sent("billing")
    assert [c for c in contents if c == user.content] == [user.content]  # the user's, as sent
    billing_said = [e for e in events if e.author == "billing"]
    shown = as_shown(decoded(contents))
    assert [a for a, _, _ in shown].count("billing") == 0  # billing's own turns are its own
    assert visible([e for e in events if e.author == "triage"], thoughts=True) == shown
    assert billing_said


@pytest.mark.filterwarnings("ignore:.*is deprecated in favor of Workflow:DeprecationWarning")
def test_other_branches_stay_out() -> None:
    """Two parallel agents, then a third: each parallel agent's second request sees no other
    branch, as ADK sends it; the third sees both, summarized."""
    models = {name: ScriptedLlm(model=f"scripted-{name}", script=script) for name, script in {
        "left": [_say(call("tool", {"x": 1}, "l-1")), _say(_text("left done"))],
        "right": [_say(_text("right thinking", thought=True), call("tool", {"x": 2}, "r-1")),
                  _say(_text("right done"))],
        "last": [_say(_text("all done"))]}.items()}

    def tool(x: int) -> int:
        """A tool."""
        return x

    def build() -> LlmAgent | SequentialAgent:
        return SequentialAgent(name="flow", sub_agents=[
            ParallelAgent(name="both", sub_agents=[
                LlmAgent(name="left", model=models["left"], tools=[tool]),
                LlmAgent(name="right", model=models["right"], tools=[tool])]),
            LlmAgent(name="last", model=models["last"])])

    reports: list[HistoryReport] = []

    async def go() -> list[Event]:
        runner = InMemoryRunner(app=App(name="p", root_agent=build(), plugins=[
            HandoffHistoryPlugin(include_thoughts=True, on_report=reports.append)]))
        session = await runner.session_service.create_session(app_name="p", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=_user("go")):
            pass
        stored = await runner.session_service.get_session(app_name="p", user_id="u",
                                                          session_id=session.id)
        assert stored is not None
        return stored.events

    events = asyncio.run(go())
    for name, other in (("left", "right"), ("right", "left")):
        for sent in models[name].sent:
            assert not summaries(sent.contents)
            assert other not in "\n".join(texts(sent.contents))
    last = models["last"].sent[-1].contents
    assert as_shown(decoded(last)) == visible([e for e in events if e.author in ("left", "right")],
                                              thoughts=True)


def test_an_event_adk_rendered_as_nothing_is_in_one_summary_only() -> None:
    """Between two runs that something else in the request splits (here a content ADK's
    processors could insert), an event of whitespace next to both goes in one summary."""
    default = run_conversation()
    events = list(default.events)
    contents = list(default.sent("support").contents)
    billing = [n for n, e in enumerate(events) if e.author == "billing"]
    spaces = Event(author="billing", invocation_id=events[billing[0]].invocation_id,
                   branch=events[billing[0]].branch,
                   content=types.Content(role="model", parts=[types.Part(text=" \t ")]))
    events.insert(billing[1], spaces)
    last = len(contents) - 1  # ADK's rendering of billing's second event
    contents.insert(last, types.Content(role="user", parts=[types.Part(text="(instructions)")]))
    out, report = HandoffHistoryPlugin().rewrite(contents, events, "support")
    found = summaries(out)
    assert len(found) == 3 and report.summaries == 3
    shown = [text for e in decoded(out) for text in texts([e.content] if e.content else [])]
    assert shown.count(" \t ") == 1
    assert as_shown(decoded(out)) == visible([e for e in events
                                              if e.author in ("triage", "billing")])


@pytest.mark.parametrize("rewind", [False, True], ids=["no rewind", "rewind"])
@pytest.mark.parametrize("include_contents", ["default", "none"])
def test_the_summaries_hold_exactly_what_adk_sends(include_contents: str, rewind: bool) -> None:
    """The matrix: billing is handed the same transfer up to three times; it is sent, as
    summaries, the other agents' events ADK would send, no more."""
    triage = [*TRANSFER_CYCLE_TRIAGE[:2]]
    billing = [TRANSFER_CYCLE_BILLING[0]]
    steps: list[types.Content | str] = [_user("hi")]
    if rewind:
        triage.append(_say(_text("REWOUND-THOUGHT", thought=True), _to("billing", "t-r")))
        billing.append(_say(_text("Billing, rewound.")))
        steps += [_user("refund?"), "rewind"]
    triage.append(TRANSFER_CYCLE_TRIAGE[2])
    billing.append(_say(_text("Billing again.")))
    steps.append(_user("again"))
    ours, default, events = _run(steps, triage, billing, include_contents=include_contents)
    rewound = {e.actions.rewind_before_invocation_id for e in events} - {None}
    last = events[-1].invocation_id
    shown = [e for e in events if e.author == "triage" and e.invocation_id not in rewound
             and (include_contents == "default" or e.invocation_id == last)]
    _check(ours, shown, default.sent("billing"), events)
    sent = "\n".join(texts(ours.sent("billing")))
    assert "REWOUND" not in sent and "Billing, rewound." not in sent
    assert ("OLD-THOUGHT" in sent) == (include_contents == "default")
    # The thread stays whole: the session's events are those of the run without the plugin.
    default_events = asyncio.run(default.events())

    def thread(found: Sequence[Event]) -> list[Any]:
        return [e.model_dump(mode="json", exclude={"id", "timestamp", "invocation_id"})
                for e in found if not e.actions.rewind_before_invocation_id]

    assert thread(events) == thread(default_events) and len(events) == len(default_events)


@pytest.mark.filterwarnings("ignore:.*is deprecated in favor of Workflow:DeprecationWarning")
@pytest.mark.parametrize("include_contents", ["default", "none"])
def test_a_thought_before_the_turn_stays_out_with_include_contents_none(
        include_contents: str) -> None:
    """first only thinks, second speaks, third is sent: a thought is content (default), but
    with include_contents='none' third's turn starts at second's event, after the thought."""
    models = {name: ScriptedLlm(model=f"scripted-{name}", script=script) for name, script in {
        "first": [_say(_text("FIRST-THOUGHT", thought=True))],
        "second": [_say(_text("Second speaks."))],
        "third": [_say(_text("Third answers."))]}.items()}

    async def go() -> list[Event]:
        root = SequentialAgent(name="flow", sub_agents=[
            LlmAgent(name="first", model=models["first"]),
            LlmAgent(name="second", model=models["second"]),
            LlmAgent(name="third", model=models["third"],
                     include_contents=include_contents)])  # type: ignore[arg-type]
        runner = InMemoryRunner(app=App(name="s", root_agent=root, plugins=[
            HandoffHistoryPlugin(include_thoughts=True)]))
        session = await runner.session_service.create_session(app_name="s", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=_user("go")):
            pass
        stored = await runner.session_service.get_session(app_name="s", user_id="u",
                                                          session_id=session.id)
        assert stored is not None
        return stored.events

    events = asyncio.run(go())
    contents = models["third"].sent[-1].contents
    authors = ["first", "second"] if include_contents == "default" else ["second"]
    assert as_shown(decoded(contents)) == visible([e for e in events if e.author in authors],
                                                  thoughts=True)
    assert ("FIRST-THOUGHT" in "\n".join(texts(contents))) == (include_contents == "default")
