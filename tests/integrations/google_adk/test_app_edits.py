"""What an app's own plugins leave in a request is what the model is sent.

A plugin before HandoffHistoryPlugin may change ADK's renderings of other
agents' events (redact a secret in place, replace a content by an edited
copy, delete a part, trim a call's arguments). Such a rendering no longer
shows what the event holds, so the plugin leaves it as it was found and
reports it; the renderings nobody changed are summarized as usual. A plugin
after it edits the summary, and those edits reach the model too. A matrix:
plugin order by kind of edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from handoff_codec.integrations.google_adk import HandoffHistoryPlugin, HistoryReport

from .conversations import ScriptedLlm, call, decoded, run_app, summaries, texts

SECRET = "SECRET-4242"


def lookup(card: str) -> dict[str, bool]:
    """Looks a card up."""
    return {"ok": True}


def _secret(content: types.Content) -> bool:
    return any(SECRET in text for text in texts([content]))


def _in_place(contents: list[types.Content], at: int) -> None:
    for part in contents[at].parts or []:
        if part.text:
            part.text = part.text.replace(SECRET, "[redacted]")


def _copied(contents: list[types.Content], at: int) -> None:
    content = contents[at]
    parts = [part.model_copy(update={"text": part.text.replace(SECRET, "[redacted]")})
             if part.text else part for part in content.parts or []]
    contents[at] = content.model_copy(update={"parts": parts})


def _part_deleted(contents: list[types.Content], at: int) -> None:
    parts = contents[at].parts or []
    for position in reversed(range(len(parts))):
        if SECRET in (parts[position].text or ""):
            del parts[position]


def _args_trimmed(contents: list[types.Content], at: int) -> None:
    for part in contents[at].parts or []:
        if part.text:  # ADK writes {'card': '...'}, the summary {"card": "..."}
            part.text = re.sub(r"""(['"])card\1: (['"])SECRET-4242\2""", "", part.text)


def _copy_unchanged(contents: list[types.Content], at: int) -> None:
    contents[at] = contents[at].model_copy()


Edit = Callable[[list[types.Content], int], None]
EDITS: dict[str, Edit] = {"in place": _in_place, "model_copy": _copied,
                          "part deleted": _part_deleted, "args trimmed": _args_trimmed,
                          "copied unchanged": _copy_unchanged}


class Editor(BasePlugin):
    """An app's plugin: applies ``edit`` to each content holding the secret."""

    def __init__(self, edit: Edit) -> None:
        super().__init__("editor")
        self.edit = edit
        self.left: list[types.Content] = []
        self.changed: list[int] = []

    async def before_model_callback(self, *, callback_context: CallbackContext,
                                    llm_request: LlmRequest) -> LlmResponse | None:
        if callback_context.agent_name != "second":
            return None
        before = [content.model_copy(deep=True) for content in llm_request.contents]
        for at, content in enumerate(llm_request.contents):
            if _secret(content):
                self.edit(llm_request.contents, at)
        self.left = [content.model_copy(deep=True) for content in llm_request.contents]
        self.changed = [at for at, (one, other) in enumerate(zip(before, self.left, strict=True))
                        if one != other]
        return None


def _run(edit: str, editor_first: bool) -> tuple[Editor, list[types.Content], list[HistoryReport],
                                                 list[str]]:
    first = ScriptedLlm(model="scripted-first", script=[
        types.Content(role="model", parts=[types.Part(text=f"card is {SECRET}"),
                                           call("lookup", {"card": SECRET}, "c-look")]),
        types.Content(role="model", parts=[
            types.Part(text="Passing you on."),
            call("transfer_to_agent", {"agent_name": "second"}, "c-to")])])
    second = ScriptedLlm(model="scripted-second", script=[
        types.Content(role="model", parts=[types.Part(text="ok")])])
    root = LlmAgent(name="first", model=first, tools=[lookup],
                    sub_agents=[LlmAgent(name="second", model=second)])
    editor = Editor(EDITS[edit])
    reports: list[HistoryReport] = []
    handoff = HandoffHistoryPlugin(on_report=reports.append)
    events = run_app(root, [types.Content(role="user", parts=[types.Part(text="hi")])],
                     [editor, handoff] if editor_first else [handoff, editor])
    authors = [event.author for event in events]
    return editor, second.sent[-1].contents, reports, authors


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_edits_after_the_plugin_reach_the_model(edit: str) -> None:
    editor, sent, _, _ = _run(edit, editor_first=False)
    assert editor.changed or edit == "copied unchanged"
    assert sent == editor.left


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_edits_before_the_plugin_reach_the_model(edit: str) -> None:
    editor, sent, reports, authors = _run(edit, editor_first=True)
    report = reports[-1]
    kept = [content for content in sent if content not in summaries(sent)]
    if edit == "copied unchanged":  # still what ADK rendered: summarized as without the editor
        assert report.edited == ()
        assert kept == [content for content in editor.left if not _secret(content)
                        and "said:" not in "".join(texts([content]))
                        and "tool" not in "".join(texts([content]))]
        assert SECRET in "".join(texts(summaries(sent)))
        return
    assert editor.changed
    edited = [editor.left[at] for at in editor.changed]
    # Each edited content reaches the model as the editor left it, in order.
    assert [content for content in kept if content in edited] == edited
    if edit != "args trimmed":  # the text's secret too: nowhere in the request
        assert not any(SECRET in text for text in texts(sent))
    else:
        assert f"'card': '{SECRET}'" not in "".join(texts(sent))
    # The edited events are reported, and not summarized; the others are.
    assert len(report.edited) == len(editor.changed)
    assert all(authors[index] == "first" for index in report.edited)
    shown = decoded(sent)
    assert [event.author for event in shown] and all(
        SECRET not in "".join(texts([event.content])) for event in shown if event.content)
    assert report.events == len(shown)


class Blur(BasePlugin):
    """An app's plugin: replaces the bytes of every image in the request, in place."""

    def __init__(self) -> None:
        super().__init__("blur")

    async def before_model_callback(self, *, callback_context: CallbackContext,
                                    llm_request: LlmRequest) -> LlmResponse | None:
        for content in llm_request.contents:
            for part in content.parts or []:
                if part.inline_data is not None:
                    part.inline_data.data = b"blurred"
        return None


@pytest.mark.parametrize("blur_first", [True, False])
def test_an_image_edited_in_place_reaches_the_model_edited(blur_first: bool) -> None:
    photo = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
    first = ScriptedLlm(model="scripted-first", script=[types.Content(role="model", parts=[
        types.Part(text="Your ID photo:"),
        types.Part(inline_data=types.Blob(data=photo, mime_type="image/png")),
        call("transfer_to_agent", {"agent_name": "second"}, "c-to")])])
    second = ScriptedLlm(model="scripted-second", script=[
        types.Content(role="model", parts=[types.Part(text="ok")])])
    root = LlmAgent(name="first", model=first, sub_agents=[LlmAgent(name="second", model=second)])
    reports: list[HistoryReport] = []
    handoff = HandoffHistoryPlugin(on_report=reports.append)
    run_app(root, [types.Content(role="user", parts=[types.Part(text="hi")])],
            [Blur(), handoff] if blur_first else [handoff, Blur()])
    sent = second.sent[-1].contents
    images = [p.inline_data.data for c in sent for p in c.parts or [] if p.inline_data]
    assert images == [b"blurred"]
    assert (len(reports[-1].edited) == 1) is blur_first
