"""Microsoft Agent Framework handoffs (``pip install 'handoff-codec[agent-framework]'``).

``dumps``/``loads``/``encode``
    ``agent_framework.Message`` lists to one summary text and back, exactly
    (``Message.to_dict()`` and every ``Content.to_dict()`` equal). Each message
    becomes Responses-API-like items: its text, media and other message parts
    as ``{"role", "content"}`` (one plain string when it is one text), function
    calls as ``function_call`` items (``arguments`` a dict or a JSON string, as
    given), function results as ``function_call_output`` items, reasoning as
    ``reasoning`` items. The items of one message after its first carry
    ``"same_message": true``: messages are told apart by that key, never by
    what their text looks like.

``HandoffHistoryProvider``
    A ``ContextProvider`` for ``HandoffBuilder`` workflows. The framework hands
    the next agent the conversation cleaned by
    ``agent_framework_orchestrations.clean_conversation_for_handoff``: text only
    on agent messages, no function calls or results, no reasoning, and no
    message left empty. Give one provider to every participant of a workflow::

        history = HandoffHistoryProvider()
        triage = Agent(client=..., name="triage", context_providers=[history],
                       require_per_service_call_history_persistence=True)

    Each agent's ``after_run`` logs its full response; an agent that runs after
    another has spoken gets, in place of the cleaned messages, ONE user message
    holding the summary of everything it has not seen (tool calls, results,
    reasoning and media included), with the user's media attached as parts.

Only public API of agent-framework-core 1.23 and agent-framework-orchestrations
1.4 is used: ``ContextProvider``, ``SessionContext.input_messages`` (a field
providers may set), ``resolve_agent_id`` and ``clean_conversation_for_handoff``
(to recognise the cleaned copies the framework hands on).
"""

from __future__ import annotations

import bisect
import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

try:
    from agent_framework import (
        AgentSession,
        Content,
        ContextProvider,
        Message,
        SessionContext,
        SupportsAgentRun,
        resolve_agent_id,
    )
    from agent_framework_orchestrations import clean_conversation_for_handoff
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "handoff_codec.integrations.agent_framework needs Microsoft Agent Framework "
        f"(agent-framework-core, agent-framework-orchestrations), which could not be imported: "
        f"{exc}. Install it with: pip install 'handoff-codec[agent-framework]'"
    ) from exc

from ..format import Codec, default_codec
from .report import Encoded, Omission, is_plain_json, warn_if_omitted

__all__ = ["HandoffHistoryProvider", "dumps", "encode", "is_summary", "loads", "summary_message"]

logger = logging.getLogger("handoff_codec")

Item = dict[str, Any]
FRAMEWORK = "agent_framework"

# Message parts that the framework's cleaning keeps on user messages, and that
# the summary message carries as parts so the next model sees them.
MEDIA_TYPES = frozenset({"data", "uri", "hosted_file", "hosted_vector_store"})
TEXT_PARTS = frozenset({"input_text", "output_text"})
MEDIA_PARTS = {"input_image": "image_url", "input_file": "file_url"}
# Standalone item type -> (the Content type it holds, the default role of its message).
STANDALONE = {
    "function_call": ("function_call", "assistant"),
    "function_call_output": ("function_result", "tool"),
    "reasoning": ("text_reasoning", "assistant"),
}
# The message's own fields on a standalone item that starts a message.
HEAD_KEYS = {"role": "role", "author": "author_name", "message_id": "message_id",
             "message_properties": "additional_properties"}
MESSAGE_ITEM_KEYS = frozenset({"type", "role", "content", "name", "id", "additional_properties",
                               "same_message"})
SAME = "same_message"


# ------------------------------------------------------------------ JSON values
class _Report:
    """The omissions of one ``encode``, at the message being written."""

    def __init__(self) -> None:
        self.omitted: list[Omission] = []
        self.index = 0

    def omit(self, field: str, reason: str) -> None:
        self.omitted.append(Omission(self.index, field, reason))


def _json(value: Any, path: str, report: _Report) -> Any:
    """``value`` as JSON; what JSON cannot hold is written as ``str(value)`` and reported."""
    return value if is_plain_json(value) else _walk(value, path, report)


def _walk(value: Any, path: str, report: _Report) -> Any:
    """``_json``, value by value: each one JSON cannot hold reported at its path."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        report.omit(path, f"{value!r} is not JSON; written as a string")
        return str(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if not isinstance(key, str):
                report.omit(f"{path}[{key!r}]", f"key {key!r} is not a string; written as str(key)")
            out[str(key)] = _walk(sub, f"{path}.{key}", report)
        return out
    if isinstance(value, list):
        return [_walk(sub, f"{path}[{n}]", report) for n, sub in enumerate(value)]
    if isinstance(value, tuple):
        report.omit(path, "a tuple; written as a JSON array, read back as a list")
        return [_walk(sub, f"{path}[{n}]", report) for n, sub in enumerate(value)]
    report.omit(path, f"a {type(value).__name__} is not JSON; written as str(value)")
    return str(value)


def _content_losses(content: Content, path: str, report: _Report,
                    form: Mapping[str, Any] | None = None) -> None:
    """Report what ``Content.to_dict()`` (``form``, when given) leaves out of ``content`` and
    its nested contents."""
    if content.raw_representation is not None:
        report.omit(f"{path}.raw_representation",
                    "the provider's raw object is not part of Content.to_dict()")
    if content.exception is not None:
        written = (content.to_dict() if form is None else form).get("exception")
        if written != content.exception:
            report.omit(f"{path}.exception", "host-internal diagnostic; written as the marker "
                        f"{written!r}, as Content.to_dict() redacts it")
    for name in ("items", "inputs", "outputs", "output", "function_call", "screenshot"):
        nested = getattr(content, name, None)
        subs = nested if isinstance(nested, list) else [nested]
        for n, sub in enumerate(subs):
            if isinstance(sub, Content):
                where = f"{path}.{name}[{n}]" if isinstance(nested, list) else f"{path}.{name}"
                _content_losses(sub, where, report)


# ------------------------------------------------------------------ Content forms <-> items
def _rest(form: Mapping[str, Any], *drop: str) -> Item:
    """``form`` without ``type``, the keys in ``drop`` and an empty ``additional_properties``."""
    return {k: v for k, v in form.items()
            if k != "type" and k not in drop and not (k == "additional_properties" and v == {})}


def _with_defaults(form: Item) -> Item:
    form.setdefault("additional_properties", {})
    return form


def _part_form(part: Mapping[str, Any]) -> Item:
    """The ``Content.to_dict()`` form of one message part."""
    kind = part.get("type")
    if kind in TEXT_PARTS:
        if not isinstance(part.get("text"), str):
            raise ValueError(f"a {kind} part without a string text: {dict(part)!r}")
        return _with_defaults({**_rest(part), "type": "text"})
    if isinstance(kind, str) and kind in MEDIA_PARTS:
        key = MEDIA_PARTS[kind]
        url = part.get(key)
        if not isinstance(url, str):
            raise ValueError(f"a {kind} part without a string {key}: {dict(part)!r}")
        return _with_defaults({**_rest(part, key), "type": "data" if url.startswith("data:")
                               else "uri", "uri": url})
    if not isinstance(kind, str):
        raise ValueError(f"a message part without a type: {dict(part)!r}")
    return _with_defaults(dict(part))  # the framework's own form


def _part(form: Item, role: str) -> Item:
    """One message part for a Content form: a Responses-like part where one keeps it exactly."""
    kind = form["type"]
    part: Item | None = None
    if kind == "text":
        part = {"type": "output_text" if role == "assistant" else "input_text",
                **_rest(form)}
    elif kind in ("uri", "data") and isinstance(form.get("uri"), str):
        media = form.get("media_type")
        image = isinstance(media, str) and media.startswith("image/")
        part_type = "input_image" if image else "input_file"
        part = {"type": part_type, MEDIA_PARTS[part_type]: form["uri"], **_rest(form, "uri")}
    if part is None or _part_form(part) != form:
        part = {"type": kind, **_rest(form)}  # the framework's own form
    return part


def _result_output(items: Any) -> str | None:
    """The plain string a function result's items hold, when they are one plain text."""
    if (isinstance(items, list) and len(items) == 1 and isinstance(items[0], dict)
            and items[0].get("type") == "text" and set(items[0]) <= {"type", "text",
                                                                     "additional_properties"}
            and items[0].get("additional_properties", {}) == {}):
        text = items[0].get("text")
        return text if isinstance(text, str) else None
    return None


def _joined(items: list[Any]) -> str:
    """A function result's ``result`` as ``Content.from_function_result`` derives it."""
    return "\n".join(f["text"] for f in items
                     if isinstance(f, dict) and f.get("type") == "text" and f.get("text"))


def _standalone(form: Item) -> Item | None:
    """The standalone item for a function call, result or reasoning form, if it keeps it."""
    kind = form["type"]
    item: Item
    if kind == "function_call":
        item = {"type": "function_call", **_rest(form)}
        if item.get("hosted") is False:
            del item["hosted"]
    elif kind == "text_reasoning":
        item = {"type": "reasoning", **_rest(form)}
    elif kind == "function_result":
        item = {"type": "function_call_output", **_rest(form, "items", "result")}
        text = _result_output(form.get("items"))
        if text is not None and form.get("result") == text:
            item["output"] = text
        else:
            item["output"] = [_part(sub, "tool") if isinstance(sub, dict) else sub
                              for sub in form.get("items") or []]
            if "result" in form and form["result"] != _joined(form.get("items") or []):
                item["result"] = form["result"]
    else:
        return None
    try:
        same = _standalone_form(item) == form
    except ValueError:
        same = False
    return item if same else None


def _standalone_form(item: Mapping[str, Any]) -> Item:
    """The Content form a standalone item holds (its message keys already taken off)."""
    kind = STANDALONE[item["type"]][0]
    form: Item = {**_rest(item), "type": kind}
    if kind == "function_call":
        form.setdefault("hosted", False)
    elif kind == "function_result":
        output = form.pop("output", None)
        if isinstance(output, str):
            form["items"] = [{"type": "text", "text": output, "additional_properties": {}}]
            form.setdefault("result", output)
        elif isinstance(output, list):
            form["items"] = [_part_form(p) if isinstance(p, Mapping) else p for p in output]
            form.setdefault("result", _joined(form["items"]))
        else:
            raise ValueError(f"function_call_output needs an output string or list, not {output!r}")
    return _with_defaults(form)


# ------------------------------------------------------------------ messages <-> items
@dataclass(frozen=True)
class _Contents:
    """A message's contents as JSON forms, and what the forms leave out (field, reason)."""

    forms: list[Item]
    losses: list[tuple[str, str]]


def _contents(message: Message, raw: Sequence[Item] | None = None) -> _Contents:
    """``_Contents`` of ``message``; ``raw``, when given, are its contents' ``to_dict()``."""
    found = _Report()
    forms: list[Item] = []
    for n, content in enumerate(message.contents):
        form = content.to_dict() if raw is None else raw[n]
        _content_losses(content, f"contents[{n}]", found, form)
        forms.append(_json(form, f"contents[{n}]", found))
    return _Contents(forms, [(omission.field, omission.reason) for omission in found.omitted])


def _message_items(message: Message, report: _Report,
                   contents: _Contents | None = None) -> list[Item]:
    """The items of ``message``; ``contents``, when given, are its :func:`_contents`."""
    role = message.role
    if message.raw_representation is not None:
        report.omit("raw_representation", "the provider's raw object is not part of "
                    "Message.to_dict()")
    if contents is None:
        contents = _contents(message)
    for field, reason in contents.losses:
        report.omit(field, reason)
    forms = contents.forms
    segments: list[Item] = []
    run: list[Item] | None = None
    for form in forms:
        item = _standalone(form)
        if item is None:
            if run is None:
                run = []
                segments.append({"role": role, "content": run})
            run.append(_part(form, role))
        else:
            run = None
            segments.append(item)
    if not segments:
        segments.append({"role": role, "content": []})
    for segment in segments:
        parts = segment.get("content")
        if (isinstance(parts, list) and len(parts) == 1 and parts[0].get("type") in TEXT_PARTS
                and set(parts[0]) == {"type", "text"}):
            segment["content"] = parts[0]["text"]
    head = segments[0]
    props = _json(dict(message.additional_properties or {}), "additional_properties", report)
    own = {"role": role, "author_name": message.author_name, "message_id": message.message_id,
           "additional_properties": props or None}
    if "content" in head:
        for key, field in (("name", "author_name"), ("id", "message_id"),
                           ("additional_properties", "additional_properties")):
            if own[field] is not None:
                head[key] = _json(own[field], field, report)
    else:
        for key, field in HEAD_KEYS.items():
            value = own[field]
            if value is not None and not (key == "role" and value == STANDALONE[head["type"]][1]):
                head[key] = _json(value, field, report)
    for segment in segments[1:]:
        segment[SAME] = True
    return segments


@dataclass
class _Building:
    role: str
    author_name: str | None
    message_id: str | None
    additional_properties: dict[str, Any]
    forms: list[Item]

    def message(self, index: int) -> Message:
        try:
            contents = [Content.from_dict(form) for form in self.forms]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"item {index}: not an agent_framework Content: {exc}") from exc
        return Message(self.role, contents, author_name=self.author_name,
                       message_id=self.message_id,
                       additional_properties=self.additional_properties)


def _optional_str(item: Mapping[str, Any], key: str, index: int) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"item {index}: {key!r} must be a string, not {value!r}")
    return value


def _messages(items: Sequence[Mapping[str, Any]]) -> list[Message]:
    out: list[Message] = []
    current: _Building | None = None
    current_at = 0
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"item {index} is not a JSON object: {item!r}")
        same = item.get(SAME, False)
        if same not in (True, False):
            raise ValueError(f"item {index}: {SAME!r} must be true or false, not {same!r}")
        if same and current is None:
            raise ValueError(f"item {index} continues a message, but no message precedes it")
        kind = item.get("type")
        if kind in (None, "message"):
            role = item.get("role")
            if not isinstance(role, str):
                raise ValueError(f"item {index}: a message item needs a string role")
            unknown = set(item) - MESSAGE_ITEM_KEYS
            if unknown:
                raise ValueError(f"item {index}: unknown keys {sorted(unknown)} on a message item")
            content = item.get("content")
            if isinstance(content, str):
                forms = [{"type": "text", "text": content, "additional_properties": {}}]
            elif isinstance(content, list):
                forms = [_part_form(part) if isinstance(part, Mapping) else _bad_part(index, part)
                         for part in content]
            else:
                raise ValueError(f"item {index}: content must be a string or a list of parts")
            if same:
                assert current is not None
                extra = set(item) & {"name", "id", "additional_properties"}
                if role != current.role or extra:
                    raise ValueError(f"item {index} continues a message with another role or "
                                     "its own message fields")
                current.forms.extend(forms)
                continue
            props = item.get("additional_properties") or {}
            if not isinstance(props, dict):
                raise ValueError(f"item {index}: additional_properties must be an object")
            head = _Building(role, _optional_str(item, "name", index),
                             _optional_str(item, "id", index), props, forms)
        elif isinstance(kind, str) and kind in STANDALONE:
            meta = {key: item[key] for key in HEAD_KEYS if key in item}
            if same and meta:
                raise ValueError(f"item {index} continues a message but has message fields "
                                 f"{sorted(meta)}")
            body = {k: v for k, v in item.items() if k not in HEAD_KEYS and k != SAME}
            form = _standalone_form(body)
            if same:
                assert current is not None
                current.forms.append(form)
                continue
            role = meta.get("role", STANDALONE[kind][1])
            props = meta.get("message_properties") or {}
            if not isinstance(role, str) or not isinstance(props, dict):
                raise ValueError(f"item {index}: role must be a string and message_properties "
                                 "an object")
            head = _Building(role, _optional_str(meta, "author", index),
                             _optional_str(meta, "message_id", index), props, [form])
        else:
            raise ValueError(f"item {index}: unknown item type {kind!r}")
        if current is not None:
            out.append(current.message(current_at))
        current, current_at = head, index
    if current is not None:
        out.append(current.message(current_at))
    return out


def _bad_part(index: int, part: Any) -> Item:
    raise ValueError(f"item {index}: a message part must be a JSON object, not {part!r}")


# ------------------------------------------------------------------ the public conversion
def encode(messages: Iterable[Message], *, codec: Codec | None = None) -> Encoded:
    """The summary text of ``messages`` and what it could not keep (see :class:`Encoded`)."""
    return _encode(((message, None) for message in messages), codec)


def _encode(messages: Iterable[tuple[Message, _Contents | None]],
            codec: Codec | None) -> Encoded:
    """:func:`encode` of messages each given with its :func:`_contents`, or None."""
    report = _Report()
    items: list[Item] = []
    for index, (message, forms) in enumerate(messages):
        if not isinstance(message, Message):
            raise TypeError(f"message {index} is a {type(message).__name__}, not an "
                            "agent_framework.Message")
        report.index = index
        items.extend(_message_items(message, report, forms))
    text = (codec or default_codec).dumps(items)
    return Encoded(text, tuple(report.omitted))


def dumps(messages: Iterable[Message], *, codec: Codec | None = None) -> str:
    """The summary text of ``messages``; one warning when something could not be kept."""
    encoded = encode(messages, codec=codec)
    warn_if_omitted(encoded, FRAMEWORK)
    return encoded.text


def loads(text: str, *, codec: Codec | None = None) -> list[Message]:
    """The ``agent_framework.Message`` list of a summary text.

    Raises DecodeError for text that is not a summary, and ValueError naming the
    item for records that are not messages this module writes or Responses-API
    message, ``function_call``, ``function_call_output`` or ``reasoning`` items.
    """
    return _messages((codec or default_codec).loads(text))


def summary_message(
    messages: Sequence[Message],
    *,
    codec: Codec | None = None,
    role: Literal["user", "assistant"] = "user",
    attach_media: bool = True,
    on_report: Callable[[Encoded], None] | None = None,
) -> Message:
    """ONE message that hands ``messages`` to the next agent: the summary text as its first part.

    With ``role="user"`` and ``attach_media`` the media of the user messages
    (data, URIs, hosted files; the parts the framework's cleaning keeps) follow
    as parts too, so the next model sees them; the summary holds them as well.
    Providers reject media on assistant turns: ``role="assistant"`` attaches
    none. ``on_report`` gets the :class:`Encoded` report; without it, omissions
    are logged as one warning.
    """
    if role not in ("user", "assistant"):
        raise ValueError(f"the summary is a user or assistant message, not {role!r}")
    return _summary_message([(message, None) for message in messages], codec, role,
                            attach_media, on_report)


def _summary_message(messages: Sequence[tuple[Message, _Contents | None]],
                     codec: Codec | None, role: Literal["user", "assistant"],
                     attach_media: bool, on_report: Callable[[Encoded], None] | None
                     ) -> Message:
    """:func:`summary_message` of messages each given with its :func:`_contents`, or None."""
    encoded = _encode(messages, codec)
    if on_report is not None:
        on_report(encoded)
    else:
        warn_if_omitted(encoded, FRAMEWORK)
    parts: list[Content] = [Content.from_text(encoded.text)]
    if role == "user" and attach_media:
        parts += [content for message, _ in messages if message.role == "user"
                  for content in message.contents if content.type in MEDIA_TYPES]
    return Message(role, parts)


def is_summary(message: Message, *, codec: Codec | None = None) -> bool:
    """Whether ``message`` is a summary message: a user or assistant message whose first
    part is a text in the codec's envelope (as :func:`summary_message` writes it)."""
    first = message.contents[0] if message.contents else None
    if message.role not in ("user", "assistant") or first is None or first.type != "text":
        return False
    return (codec or default_codec).is_summary({"role": "assistant", "content": first.text})


# ------------------------------------------------------------------ the drop-in provider
def _key(message: Message, forms: Sequence[Item]) -> str:
    """``message`` as text, to find it again: its own fields and its contents' ``forms``."""
    return json.dumps([message.to_dict(exclude={"contents"}), forms], sort_keys=True,
                      ensure_ascii=False, default=repr)


def _forms(message: Message) -> list[Item]:
    return [content.to_dict() for content in message.contents]


@dataclass
class _Entry:
    """One message of the conversation: an input (``author`` None) or an agent's response.

    ``contents`` are worked out once, when it is logged, for every summary that holds it.
    """

    message: Message
    author: str | None
    contents: _Contents
    raw: str
    cleaned: str | None

    def echo(self, agent: str) -> str | None:
        """What ``agent`` is handed of this message: an input or its own message as it is,
        another agent's as the framework's cleaning leaves it (None when dropped)."""
        return self.raw if self.author in (None, agent) else self.cleaned


class HandoffHistoryProvider(ContextProvider):
    """Hands each agent of a ``HandoffBuilder`` workflow the whole conversation as ONE summary.

    Give the same instance to every participant (and build one per workflow:
    it holds the conversation of one workflow, in memory). ``after_run`` logs
    each agent's full response; ``before_run`` logs the new inputs and, when
    other agents have spoken since this agent last ran, sets
    ``context.input_messages`` to the agent's own messages handed back to it
    (its handoff call's result) followed by :func:`summary_message` of
    everything else it has not seen. Otherwise the input is left as it is.

    Inputs the provider cannot place (say, after a workflow restored from a
    checkpoint in another process) are logged as new and named in a warning.
    """

    def __init__(
        self,
        source_id: str = "handoff_codec.history",
        *,
        codec: Codec | None = None,
        role: Literal["user", "assistant"] = "user",
        attach_media: bool = True,
        on_report: Callable[[Encoded], None] | None = None,
    ) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"the summary is a user or assistant message, not {role!r}")
        super().__init__(source_id)
        self.codec = codec
        self.role: Literal["user", "assistant"] = role
        self.attach_media = attach_media
        self.on_report = on_report
        self._log: list[_Entry] = []
        self._seen: dict[str, int] = {}

    @property
    def conversation(self) -> list[Message]:
        """Every message logged so far, in order (a new list)."""
        return [entry.message for entry in self._log]

    def _add(self, message: Message, author: str | None, forms: list[Item],
             raw: str) -> None:
        cleaned_key = None
        if author is not None:
            cleaned = clean_conversation_for_handoff([message])
            if cleaned:  # its contents are some of the message's own, kept as they are
                form_of = {id(content): form for content, form in zip(message.contents, forms,
                                                                      strict=True)}
                kept = [form_of.get(id(content)) or content.to_dict()
                        for content in cleaned[0].contents]
                cleaned_key = _key(cleaned[0], kept)
        self._log.append(_Entry(message, author, _contents(message, forms), raw, cleaned_key))

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Log the new inputs; replace the cleaned history with one summary when it is lossy."""
        me = resolve_agent_id(agent)
        start = self._seen.get(me, 0)
        # Where each message this agent may be handed back sits in the log, in order.
        places: dict[str | None, list[int]] = {}
        for k in range(start, len(self._log)):
            places.setdefault(self._log[k].echo(me), []).append(k)
        at = start
        own: list[Message] = []
        unplaced: list[str] = []
        for message in context.input_messages:
            forms = _forms(message)
            key = _key(message, forms)
            candidates = places.get(key, [])
            n = bisect.bisect_left(candidates, at)
            found = candidates[n] if n < len(candidates) else None
            if found is None:
                if message.role != "user":
                    unplaced.append(message.role)
                self._add(message, None, forms, key)
                continue
            at = found + 1
            if self._log[found].author == me:
                own.append(message)
        if unplaced:
            logger.warning("agent_framework handoff: %d input message(s) of %s were not seen by "
                           "the HandoffHistoryProvider before; summarized as new inputs",
                           len(unplaced), me)
        unseen = [entry for entry in self._log[start:] if entry.author != me]
        if not any(entry.author is not None for entry in unseen):
            return
        summary = _summary_message([(entry.message, entry.contents) for entry in unseen],
                                   self.codec, self.role, self.attach_media, self.on_report)
        context.input_messages = [*own, summary]

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Log the agent's full response: function calls, results and reasoning included."""
        if context.response is None:
            return
        me = resolve_agent_id(agent)
        self._seen[me] = len(self._log)
        for message in context.response.messages:
            forms = _forms(message)
            self._add(message, me, forms, _key(message, forms))
