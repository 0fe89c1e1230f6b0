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
    A ``ContextProvider`` for ``HandoffBuilder`` workflows, one instance for
    every participant of every workflow. The framework hands each agent the
    others' responses cleaned by ``clean_conversation_for_handoff``: text only,
    no function calls, results or reasoning, and no message left empty. The
    provider marks each response so that what the framework hands on carries
    all of it (:func:`hand_on`), and sends each model, in place of every run of
    other agents' messages, ONE summary of what a model is sent of them
    (:func:`model_items`). Only the model's request changes.

    The records travel as their JSON text, sealed (HMAC-SHA256 under a key
    derived for that purpose from the codec's key or a key drawn at import)
    over themselves and the message they ride on, and are read by content: a
    message a client sends, of any role and with any fields, stands for
    itself, and so does a message the app's middleware edited, as edited. An
    agent middleware that edits the response after the run needs
    ``history.agent_middleware`` listed before it::

        history = HandoffHistoryProvider()
        triage = Agent(client=..., name="triage", context_providers=[history],
                       middleware=[history.agent_middleware],
                       require_per_service_call_history_persistence=True)

Tested with agent-framework-core 1.26 and agent-framework-orchestrations 1.4.
Public API only: ``ContextProvider``, ``SessionContext.extend_middleware``,
``ChatMiddleware``, ``AgentMiddleware`` and ``clean_conversation_for_handoff``;
the import checks that each is there.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import hashlib
import hmac
import inspect
import json
import logging
import math
import secrets
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..format import Codec, EncodeError, default_codec
from ._common_items import NAME_CARRIER, Notes, media_type
from ._extras import missing
from .report import Encoded, Omission, ReadBack, _dumped, _loaded, is_plain_json, warn_if_omitted

TESTED = "agent-framework-core 1.26 and agent-framework-orchestrations 1.4"
try:
    from agent_framework import (
        AgentContext,
        AgentMiddleware,
        AgentResponse,
        AgentSession,
        ChatContext,
        ChatMiddleware,
        Content,
        ContextProvider,
        Message,
        SessionContext,
        SupportsAgentRun,
    )
    from agent_framework_orchestrations import clean_conversation_for_handoff
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing("agent_framework", "Microsoft Agent Framework (agent-framework-core, "
                  "agent-framework-orchestrations)", "agent-framework", exc, TESTED) from exc
if not callable(getattr(SessionContext, "extend_middleware", None)):  # pragma: no cover
    raise ImportError(
        "handoff_codec.integrations.agent_framework needs SessionContext.extend_middleware, "
        f"which the installed agent-framework-core lacks; tested with {TESTED}: "
        "pip install 'handoff-codec[agent-framework]'")

__all__ = ["MARK", "HandoffHistoryProvider", "dumps", "encode", "hand_on", "is_summary", "loads",
           "model_items", "summary_message", "thread"]

logger = logging.getLogger("handoff_codec")

Item = dict[str, Any]
FRAMEWORK = "agent_framework"

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
        else:  # a JSON value: as the framework holds a function's result, its JSON text
            held = Content.from_function_result(call_id=str(form.get("call_id")),
                                                result=output).to_dict()
            form["items"], form["result"] = held["items"], held["result"]
    return _with_defaults(form)


# ------------------------------------------------------------------ messages <-> items
def _message_items(message: Message, report: _Report) -> list[Item]:
    """The items of ``message``, each value JSON cannot hold reported in ``report``."""
    role = message.role
    if message.raw_representation is not None:
        report.omit("raw_representation", "the provider's raw object is not part of "
                    "Message.to_dict()")
    forms: list[Item] = []
    for n, content in enumerate(message.contents):
        form = content.to_dict()
        _content_losses(content, f"contents[{n}]", report, form)
        forms.append(_json(form, f"contents[{n}]", report))
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


# ------------------------------------------------------------------ the exact conversion
def encode(messages: Iterable[Message], *, codec: Codec | None = None) -> Encoded:
    """The summary text of ``messages`` and what it could not keep (see :class:`Encoded`)."""
    report = _Report()
    items: list[Item] = []
    previous: str | None = None
    for index, message in enumerate(messages):
        if not isinstance(message, Message):
            raise TypeError(f"message {index} is a {type(message).__name__}, not an "
                            "agent_framework.Message")
        report.index = index
        segments = _message_items(message, report)
        _common_marks(segments, message, previous)
        items.extend(segments)
        previous = message.role
    return Encoded((codec or default_codec).dumps(items), tuple(report.omitted))


def _common_marks(segments: list[Item], message: Message, previous: str | None) -> None:
    """What any reader needs to read ``message``'s items as this one message.

    An assistant message that starts with a call, when it has an author or
    follows an assistant message, starts with a message item with no part
    (the common ``name``, and a turn any reader tells from the one before); a
    result starting a message right after a tool message says
    ``same_message: false`` (adjacent results are one message in the common
    shape).
    """
    head = segments[0]
    kind = head.get("type")
    if "content" in head or kind not in STANDALONE:
        return
    if message.role == "assistant" and (message.author_name is not None
                                        or previous == "assistant"):
        carrier: Item = {"role": message.role, "content": list(NAME_CARRIER)}
        for key, ours in (("author", "name"), ("message_id", "id"),
                          ("message_properties", "additional_properties")):
            if key in head:
                carrier[ours] = head.pop(key)
        head.pop("role", None)
        for segment in segments:
            segment[SAME] = True
        segments.insert(0, carrier)
    elif previous == STANDALONE[kind][1] and not set(head) & set(HEAD_KEYS):
        head[SAME] = False


_CONTENT_KEYS = frozenset(inspect.signature(Content.__init__).parameters) - {"self"}
# ("message" is an error content's text, never a call's, result's or reasoning's field)
_STANDALONE_KEYS = (_CONTENT_KEYS - {"message"}) | set(HEAD_KEYS) | {"type", "output", SAME}
_PART_KEYS = {"input_text": frozenset({"type", "text", "annotations", "additional_properties"}),
              "output_text": frozenset({"type", "text", "annotations", "additional_properties"}),
              "input_image": frozenset({"type", "image_url", "media_type",
                                        "additional_properties"}),
              "input_file": frozenset({"type", "file_url", "media_type", "additional_properties"})}


def _common_part(index: int, part: Any, notes: Notes, where: str) -> Any:
    """A content part with what a Content cannot hold left out (reported); None for none."""
    if not isinstance(part, Mapping):
        return part  # refused by _messages, naming the item
    kind = part.get("type")
    allowed = _PART_KEYS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        try:
            Content.from_dict(_with_defaults(dict(part)))
        except (TypeError, ValueError, KeyError):
            notes.drop(index, where, f"a {kind!r} content part; no Content holds it")
            return None
        return part
    kept = notes.foreign(index, part, allowed, where + ".")
    url = kept.get("image_url")  # this module writes an image's media type; others may not
    if kind == "input_image" and isinstance(url, str) and "media_type" not in kept:
        kept["media_type"] = media_type(url, True)
    return kept


def _common_items(items: Sequence[Any], notes: Notes) -> list[Any]:
    """Any module's items as this module reads them: adjacent calls (after an assistant
    message) one message, adjacent results one; what a Message cannot hold left out."""
    out: list[Any] = []
    role: str | None = None  # the role of the message the last item belongs to
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            out.append(item)
            continue
        kind = item.get("type")
        if kind in (None, "message") and "role" in item:
            kept = notes.foreign(index, item, MESSAGE_ITEM_KEYS)
            if isinstance(kept.get("content"), list):
                parts = [_common_part(index, part, notes, f"content[{at}]")
                         for at, part in enumerate(kept["content"])]
                kept["content"] = [part for part in parts if part is not None]
            role = kept.get("role") if not kept.get(SAME) else role
        elif isinstance(kind, str) and kind in STANDALONE:
            kept = notes.foreign(index, item, _STANDALONE_KEYS)
            default = STANDALONE[kind][1]
            if SAME not in kept and not set(kept) & set(HEAD_KEYS) and role == default:
                kept[SAME] = True
            if not kept.get(SAME):
                role = kept.get("role", default)
            output = kept.get("output")
            if kind == "function_call_output" and not isinstance(output, str | list):
                notes.drop(index, "output", "a JSON result; held as its JSON text, as "
                           "Content.from_function_result holds it")
        else:
            notes.drop(index, f"type {kind!r}", "no Message holds such an item; left out")
            continue
        out.append(kept)
    return out


def dumps(messages: Iterable[Message], *, codec: Codec | None = None) -> str:
    """The summary text of ``messages``; one warning when something could not be kept."""
    return _dumped(encode(messages, codec=codec), FRAMEWORK)


def loads(text: str, *, codec: Codec | None = None) -> list[Message]:
    """The ``agent_framework.Message`` list of a summary text, whatever framework module
    wrote it (:func:`read`; one warning when something was left out).

    Raises DecodeError for text that is not a summary, and ValueError naming the
    item for records that are not messages this module writes or Responses-API
    message, ``function_call``, ``function_call_output`` or ``reasoning`` items.
    """
    return _loaded(read(text, codec=codec), FRAMEWORK)


def read(text: str, *, codec: Codec | None = None) -> ReadBack[Message]:
    """The ``agent_framework.Message`` list of a summary text, and what of it they cannot hold.

    What :func:`dumps` wrote reads back exactly. Any module's items are read in
    their common shape (docs/frameworks.md, "Any framework to any other"): adjacent
    calls, with the assistant message before them, one message, adjacent
    results one; the keys, parts and items a Message cannot hold (ADK's
    ``event``, PydanticAI's ``message``...) are left out and reported, and a
    JSON result is held as its JSON text, as ``Content.from_function_result``
    holds it.
    """
    notes = Notes(FRAMEWORK)
    items = _common_items((codec or default_codec).loads(text), notes)
    return ReadBack(_messages(items), notes.omitted)


# ------------------------------------------------------------------ what a model is sent
# Content a provider is never sent: token counts, and approvals the framework resolves itself
# (its chat clients skip them).
NOT_SENT = frozenset({"usage", "function_approval_request", "function_approval_response"})
CALL_ITEMS = frozenset({"function_call", "function_call_output"})
# Keys of Content.to_dict() that are the framework's or the provider's, never the model's.
BOOKKEEPING = frozenset({"type", "additional_properties", "raw_representation", "annotations"})


def _media_part(content: Content) -> Item | None:
    """A text, image or file content as a Responses-API message part; None for other kinds."""
    media = content.media_type
    if content.type in ("uri", "data") and isinstance(content.uri, str):
        image = isinstance(media, str) and media.startswith("image/")
        part: Item = ({"type": "input_image", "image_url": content.uri} if image
                      else {"type": "input_file", "file_url": content.uri})
    elif content.type == "hosted_file" and isinstance(content.file_id, str):
        part = {"type": "input_file", "file_id": content.file_id}
    else:
        return None
    if media is not None:
        part["media_type"] = media
    return part


def _visible_result(content: Content, path: str, report: _Report) -> Item:
    """A function result as the ``function_call_output`` item a model is sent."""
    item: Item = {"type": "function_call_output", "call_id": content.call_id}
    parts = content.items or []
    if all(part.type == "text" for part in parts):
        item["output"] = content.result if isinstance(content.result, str) else _json(
            content.result, f"{path}.result", report)
    else:
        item["output"] = [_result_part(part, f"{path}.items[{n}]", report)
                          for n, part in enumerate(parts)]
    return item


def _result_part(part: Content, path: str, report: _Report) -> Item:
    """One part of a function result that holds media: text, an image or file, or other."""
    if part.type == "text":
        return {"type": "input_text", "text": part.text}
    return _media_part(part) or _visible_fields(part, path, report)


def _visible_fields(content: Content, path: str, report: _Report) -> Item:
    """Any other content: its ``to_dict()`` fields but the framework's own."""
    form = content.to_dict()
    item = {"type": content.type, **{k: v for k, v in form.items()
                                     if k not in BOOKKEEPING and v is not None}}
    return dict(_json(item, path, report))


def _visible_item(content: Content, path: str, report: _Report) -> Item | None:
    """The item a model is sent for a content that is not a message part, or None."""
    kind = content.type
    if kind == "function_call":
        item: Item = {"type": "function_call", "call_id": content.call_id,
                      "name": content.name}
        if content.arguments is not None:
            item["arguments"] = _json(content.arguments, f"{path}.arguments", report)
        return item
    if kind == "function_result":
        return _visible_result(content, path, report)
    if kind == "text_reasoning":
        return None if content.text is None else {"type": "reasoning", "text": content.text}
    if kind in NOT_SENT:
        return None
    return _visible_fields(content, path, report)


def _visible(message: Message, report: _Report) -> list[Item]:
    """``message`` as the Responses-API input items a model reads: its text, media, function
    calls (ids, names, arguments), results and reasoning; none of its ids, metadata or usage."""
    items: list[Item] = []
    parts: list[Item] | None = None
    for n, content in enumerate(message.contents):
        if content.type == "text":
            part: Item | None = {"type": "output_text" if message.role == "assistant"
                                 else "input_text", "text": content.text}
        else:
            part = _media_part(content)
        if part is None:
            parts = None
            item = _visible_item(content, f"contents[{n}]", report)
            if item is not None:
                items.append(item)
            continue
        if parts is None:
            parts = []
            items.append(_turn(message, parts))
        parts.append(part)
    if not message.contents:
        items.append(_turn(message, []))
    for item in items:
        one = item.get("content")
        if isinstance(one, list) and len(one) == 1 and one[0]["type"] in TEXT_PARTS:
            item["content"] = one[0]["text"]
    return items


def _turn(message: Message, parts: list[Item]) -> Item:
    turn: Item = {"role": message.role}
    if message.author_name is not None:
        turn["name"] = message.author_name
    turn["content"] = parts
    return turn


def model_items(messages: Iterable[Message], *, codec: Codec | None = None) -> list[Item]:
    """What a model is sent of ``messages``, as Responses-API input items.

    Text (whitespace and empty parts included), images and files, function calls
    with their ids and arguments, function results and reasoning text, each
    message's role and author. Not the framework's bookkeeping: message and
    response ids, ``additional_properties``, raw provider objects, usage,
    annotations, approvals, a failed tool's exception (its result says it
    failed). A message the drop-in marked when handing it on stands for the
    records it carries, when its seal holds (:func:`hand_on`; ``codec`` as given
    there).
    """
    report = _Report()
    codec = codec or default_codec
    return [item for message in messages
            for item in copy.deepcopy(_handed(message, codec)) or _visible(message, report)]


# ------------------------------------------------------------------ marks only our code writes
MARK = "handoff_codec"
"""The ``additional_properties`` key of what this module writes on a message."""
_PROCESS_KEY = secrets.token_bytes(32)


_RECORDS = b"handoff_codec.agent_framework records v2\x00"
"""What a seal over records starts with."""
_SUMMARY = b"handoff_codec.agent_framework summary v2\x00"
"""What a summary's tag starts with."""
_KEY_LABEL = b"handoff_codec.agent_framework key\x00"


@functools.lru_cache(maxsize=64)
def _purpose_key(master: bytes, purpose: bytes) -> bytes:
    """The key of one purpose (``_RECORDS`` or ``_SUMMARY``) derived from ``master``.

    Each kind of MAC this module writes is under its own key, and no HMAC under
    ``master`` is written anywhere (the core's signature line is HMAC(master,
    its own domain + text), never one of these labels), so no MAC anyone can
    read passes for another kind: a records seal is no summary tag, a signature
    line neither.
    """
    return hmac.new(master, _KEY_LABEL + purpose, hashlib.sha256).digest()


def _masters(codec: Codec) -> tuple[bytes, ...]:
    """The keys a mark may be under: the codec's key (or this process's), its verify_keys."""
    return (codec.key or _PROCESS_KEY, *codec.verify_keys)


def _bound(message: Message) -> tuple[str, str | None, tuple[str, ...]]:
    """What records are bound to of the message they ride on: its role, author and
    non-empty texts, which is what ``clean_conversation_for_handoff`` hands on of a
    message that is not the user's."""
    return (message.role, message.author_name,
            tuple(c.text for c in message.contents if c.type == "text" and c.text))


def _records_seal(key: bytes, carrier: bool, by: str | None,
                  bound: tuple[str, str | None, tuple[str, ...]], records: str) -> str:
    """The HMAC-SHA256 that binds ``records`` (their JSON text), written for agent ``by``, to
    the message they ride on."""
    head = json.dumps([carrier, by, bound[0], bound[1], list(bound[2])], ensure_ascii=False,
                      separators=(",", ":"))  # one line: JSON escapes every line break
    data = _RECORDS + head.encode("utf-8", "surrogatepass") + b"\n" + records.encode(
        "utf-8", "surrogatepass")
    return hmac.new(_purpose_key(key, _RECORDS), data, hashlib.sha256).hexdigest()


# What this process verified (or sealed) lately: everything a seal covers, by value (the
# key, the seal, the carrier flag, what it is bound to, the records' JSON text), to the
# records read from it. Keyed by content, never by object: a message edited in any way
# is looked up afresh and verified. Bounded; an entry only saves work.
_VERIFIED: dict[tuple[Any, ...], list[Item]] = {}
_VERIFIED_MAX = 4096


def _remember(key: tuple[Any, ...], records: list[Item]) -> None:
    _VERIFIED[key] = records
    while len(_VERIFIED) > _VERIFIED_MAX:
        try:
            del _VERIFIED[next(iter(_VERIFIED))]
        except (KeyError, RuntimeError, StopIteration):  # another thread evicted it
            break


def _seal_records(message: Message, items: list[Item], codec: Codec, *, by: str | None,
                  carrier: bool = False) -> Message:
    """A copy of ``message`` carrying ``items`` under a seal only this module writes.

    The records travel as their JSON text: a copy that nothing shares with the
    response's contents, and that no one can edit in place.
    """
    key = codec.key or _PROCESS_KEY
    records = json.dumps(items, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    bound = _bound(message)
    seal = _records_seal(key, carrier, by, bound, records)
    _remember((key, seal, carrier, by, bound, records), json.loads(records))
    mark: Item = {"items": records, "seal": seal, "by": by}
    if carrier:
        mark["carrier"] = True
    copied = copy.copy(message)
    copied.additional_properties = {**message.additional_properties, MARK: mark}
    return copied


def _sealed(message: Message, codec: Codec) -> tuple[list[Item], bool, str | None] | None:
    """The records ``message`` carries, whether it is a carrier and the agent whose response
    they are, when :func:`hand_on`
    sealed them on this very message (its role, author and the text the framework hands
    on) under ``codec``'s key, one of its ``verify_keys``, or this process's key; else None.

    A user message never carries any, and nothing a client sends can: a forged, copied or
    edited mark fails the seal, and the message stands for itself. The records returned
    are shared: read them, never change them.
    """
    mark = message.additional_properties.get(MARK) if message.role != "user" else None
    if not isinstance(mark, Mapping):
        return None
    records, seal, carrier = mark.get("items"), mark.get("seal"), mark.get("carrier", False)
    by = mark.get("by")
    if (not isinstance(records, str) or not isinstance(seal, str) or not seal.isascii()
            or type(carrier) is not bool or not (by is None or isinstance(by, str))):
        return None
    bound = _bound(message)
    for key in _masters(codec):
        entry = (key, seal, carrier, by, bound, records)
        found = _VERIFIED.get(entry)
        if found is not None:
            return found, carrier, by
        try:
            expected = _records_seal(key, carrier, by, bound, records)
        except (TypeError, ValueError):  # not what this module wrote
            return None
        if hmac.compare_digest(seal, expected):
            try:
                items = json.loads(records)
            except ValueError:
                return None
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                return None
            _remember(entry, items)
            return items, carrier, by
    return None


def _handed(message: Message, codec: Codec) -> list[Item] | None:
    """The records a message carries when :class:`HandoffHistoryProvider` handed it on."""
    sealed = _sealed(message, codec)
    return None if sealed is None else sealed[0]


def _seal(role: str, text: str, key: bytes) -> str:
    """The tag that marks ``text`` as a summary of ``role`` this process (or any holding the
    codec's key) wrote: an HMAC-SHA256 under the summary key derived from ``key``."""
    data = _SUMMARY + role.encode("utf-8", "surrogatepass") + b"\x00" + text.encode(
        "utf-8", "surrogatepass")
    return hmac.new(_purpose_key(key, _SUMMARY), data, hashlib.sha256).hexdigest()


def is_summary(message: Message, *, codec: Codec | None = None) -> bool:
    """Whether ``message`` is a summary :func:`summary_message` wrote.

    Judged by the tag in ``additional_properties`` (which ``to_dict()`` and
    ``from_dict()`` keep), checked against the role and text: an HMAC under a key
    derived from the codec's key (or one of its ``verify_keys``), or from a key
    drawn when this module was imported. A message a client
    sends, whatever its text or fields, is not one. Without a codec key, a
    summary is recognised in the process that wrote it.
    """
    mark = message.additional_properties.get(MARK)
    tag = mark.get("summary") if isinstance(mark, Mapping) else None
    first = message.contents[0] if message.contents else None
    if (not isinstance(tag, str) or not tag.isascii() or message.role not in ("user", "assistant")
            or first is None or first.type != "text" or first.text is None):
        return False
    verified = False
    for key in _masters(codec or default_codec):  # every key tried: timing tells none
        verified |= hmac.compare_digest(tag, _seal(message.role, first.text, key))
    return verified


# ------------------------------------------------------------------ the summary message
def _attachment(part: Mapping[str, Any]) -> Content | None:
    """A media part of a record as a Content to attach, or None."""
    url = part.get("image_url") or part.get("file_url")
    media = part.get("media_type")
    if isinstance(url, str):
        return Content.from_uri(url, media_type=media if isinstance(media, str) else None)
    if isinstance(part.get("file_id"), str):
        return Content.from_hosted_file(part["file_id"])
    return None


def _attachments(items: Sequence[Mapping[str, Any]]) -> list[Content]:
    """The images and files the records hold, in order, as parts for the summary message."""
    found: list[Content] = []
    for item in items:
        parts = item.get("content") if "role" in item else item.get("output")
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, Mapping) and part.get("type") in MEDIA_PARTS:
                content = _attachment(part)
                if content is not None:
                    found.append(content)
    return found


def summary_message(
    messages: Sequence[Message],
    *,
    codec: Codec | None = None,
    role: Literal["user", "assistant"] = "user",
    attach_media: bool = True,
    on_report: Callable[[Encoded], None] | None = None,
) -> Message:
    """ONE message that hands what a model is sent of ``messages`` (:func:`model_items`) to
    the next agent's model: the summary text as its first part, tagged (:func:`is_summary`).

    With ``role="user"`` and ``attach_media`` their images and files follow as
    parts too, so the next model sees them; the summary holds them as well.
    Providers reject media on assistant turns: ``role="assistant"`` attaches
    none. ``on_report`` gets the :class:`Encoded` report (values that are not
    JSON, written as ``str(value)``); without it, they are logged as one warning.
    """
    if role not in ("user", "assistant"):
        raise ValueError(f"the summary is a user or assistant message, not {role!r}")
    codec = codec or default_codec
    report = _Report()
    items: list[Item] = []
    for index, message in enumerate(messages):
        report.index = index
        items.extend(_handed(message, codec) or _visible(message, report))
    return _summary_of(items, report, codec, role, attach_media, on_report)


def _summary_of(items: list[Item], report: _Report, codec: Codec,
                role: Literal["user", "assistant"], attach_media: bool,
                on_report: Callable[[Encoded], None] | None) -> Message:
    """The summary message of ``items`` (see :func:`summary_message`)."""
    encoded = Encoded(codec.dumps(items), tuple(report.omitted))
    if on_report is not None:
        on_report(encoded)
    else:
        warn_if_omitted(encoded, FRAMEWORK)
    parts = [Content.from_text(encoded.text)]
    if role == "user" and attach_media:
        parts += _attachments(items)
    tag = _seal(role, encoded.text, codec.key or _PROCESS_KEY)
    return Message(role, parts, additional_properties={MARK: {"summary": tag}})


# ------------------------------------------------------------------ the drop-in provider
def _kept(response: Sequence[Message]) -> tuple[list[int] | None, list[Message]]:
    """The positions of the messages the framework's cleaning hands on (None when they
    cannot be told: the cleaned copies hold contents of their originals), and the copies."""
    cleaned = clean_conversation_for_handoff(list(response))
    kept: list[int] = []
    for index, message in enumerate(response):
        if len(kept) < len(cleaned) and cleaned[len(kept)].contents and any(
                content is cleaned[len(kept)].contents[0] for content in message.contents):
            kept.append(index)
    return (kept if len(kept) == len(cleaned) else None), cleaned


def hand_on(response: Sequence[Message], author: str | None, *,
            codec: Codec | None = None) -> list[Message]:
    """``response`` with the records of every message on the ones the framework hands on.

    ``HandoffBuilder`` hands the other agents each response cleaned by
    ``clean_conversation_for_handoff``: text only, and no message left empty.
    Each message it keeps is replaced by a copy whose ``additional_properties``
    carry the records (:func:`model_items`) of itself and of the messages
    dropped after it (the first one also of those dropped before it), so a
    call and its result travel together. When it keeps none (a turn that only
    called tools or handed off), a carrier is put first: an assistant message
    of ``author`` whose one text is a space.

    The records travel as their JSON text, sealed with an HMAC-SHA256 under a
    key derived from ``codec``'s key (or a key drawn when this module was
    imported) over that text and what the framework hands on of the message
    they ride on (role, author, non-empty texts): they are read only while
    that message and they are as this function left them.
    """
    return _hand_on(response, author, codec or default_codec, [])


def _hand_on(response: Sequence[Message], author: str | None, codec: Codec,
             earlier: list[Item]) -> list[Message]:
    """:func:`hand_on`, with ``earlier`` records (of runs that were waiting for an approval)
    carried first."""
    report = _Report()
    records = [_visible(message, report) for message in response]
    if records:
        records[0] = [*earlier, *records[0]]
    elif earlier:
        records = [earlier]
    kept, _ = _kept(response)
    if not kept:
        carried = [item for items in records for item in items]
        if not carried:
            return list(response)
        space = Message("assistant", [" "], author_name=author)
        carrier = _seal_records(space, carried, codec, by=author, carrier=True)
        return [carrier, *response]
    out = list(response)
    for n, index in enumerate(kept):
        start = 0 if n == 0 else index
        end = kept[n + 1] if n + 1 < len(kept) else len(response)
        out[index] = _seal_records(response[index], [item for items in records[start:end]
                                                     for item in items], codec, by=author)
    return out


def thread(messages: Iterable[Message], *, codec: Codec | None = None) -> list[Message]:
    """``messages`` as the framework keeps them without this module: the carriers
    :func:`hand_on` put in a turn that said nothing left out, and its records taken off
    the other messages (copies; the rest as they are).

    Only what :func:`hand_on` provably wrote (its seal holds under ``codec``, as
    there) is taken off: any other message, whatever its text or fields, stays
    as it is.
    """
    codec = codec or default_codec
    out: list[Message] = []
    for message in messages:
        sealed = _sealed(message, codec)
        if sealed is None:
            out.append(message)
        elif not sealed[1]:
            copied = copy.copy(message)
            copied.additional_properties = {key: value for key, value in
                                            message.additional_properties.items() if key != MARK}
            out.append(copied)
    return out


# The summaries written for a run of messages, by its first message and what the run holds:
# a model call sends its session's history again, as the same message objects, so each
# summary is written once. A cache, not the conversation's state: an entry goes with its
# message, and a message of another conversation is another object.
_WRITTEN: weakref.WeakKeyDictionary[Message, dict[tuple[Any, ...], Message]] = (
    weakref.WeakKeyDictionary())


@dataclass
class _Reading:
    """What a message of text parts only stood for when last read without records."""

    fingerprint: tuple[Any, ...]
    records: list[Item]
    written_from: str


# What each message of text parts only stood for when last read without records: a model
# call sends its session's history again, as the same message objects. Checked by value
# (role, author, texts) on each read. A cache, not the conversation's state, like _WRITTEN.
_READ: weakref.WeakKeyDictionary[Message, _Reading] = weakref.WeakKeyDictionary()


def _fingerprint(message: Message) -> tuple[Any, ...] | None:
    """What a model is sent of ``message`` depends on, for a message of text parts only
    (what the framework hands on of another agent's turn); None for others."""
    texts = []
    for content in message.contents:
        if content.type != "text":
            return None
        texts.append(content.text)
    return message.role, message.author_name, tuple(texts)


def _read(message: Message, codec: Codec
          ) -> tuple[list[Item], str, list[tuple[str, str]], bool]:
    """What ``message`` stands for in a summary: the records it carries while their seal
    holds, else what a model is sent of it; with what identifies that reading (the seal,
    or those items as JSON), what could not be written as JSON (field, reason) and whether
    the records were read."""
    sealed = _sealed(message, codec)
    if sealed is not None:
        return sealed[0], str(message.additional_properties[MARK]["seal"]), [], True
    fingerprint = _fingerprint(message)
    cached = _READ.get(message) if fingerprint is not None else None
    if cached is not None and cached.fingerprint == fingerprint:
        return cached.records, cached.written_from, [], False
    report = _Report()
    records = _visible(message, report)
    omitted = [(o.field, o.reason) for o in report.omitted]
    written_from = json.dumps(records, ensure_ascii=False, sort_keys=True, default=repr)
    if fingerprint is not None:
        _READ[message] = _Reading(fingerprint, records, written_from)
    return records, written_from, omitted, False


class _SummaryMiddleware(ChatMiddleware):
    """Sends one agent's model its request with other agents' messages summarized; the
    request the framework keeps (the session's history) stays as it built it."""

    def __init__(self, provider: HandoffHistoryProvider, agent: str | None) -> None:
        self.provider = provider
        self.agent = agent

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]
                      ) -> None:
        built = context.messages
        try:
            sent = self.provider.rewrite(built, self.agent)
        except Exception:  # a handoff must not fail for its history: send what was built
            logger.exception("agent_framework handoff: the request was sent as the framework "
                             "built it")
            sent = None
        if sent is None:
            await call_next()
            return
        context.messages = sent
        try:
            await call_next()
        finally:
            context.messages = built


class HandoffHistoryProvider(ContextProvider):
    """Hands each agent of a ``HandoffBuilder`` workflow what the other agents said and did.

    Give the same instance to every participant; one serves any number of
    workflows at once, as it keeps nothing: everything travels with the
    conversation's messages.

    ``after_run`` marks the agent's response (:func:`hand_on`): the messages
    the framework hands the other agents carry the records of the whole
    response, tool calls, results and reasoning included, sealed. ``before_run``
    adds a chat middleware that, on each model call, sends the model the
    request with every run of other agents' messages replaced by ONE
    :func:`summary_message`: of the records each carries while their seal
    holds, else of the message as the request holds it (edited by the app's
    middleware, sent by a client, or sealed in another process without a codec
    key). The user's messages and the agent's own stay as they are, and so does
    everything the framework keeps: the session's history, the workflow's state
    and its outputs. Give ``codec=Codec(key=...)`` for records to be read in
    another process (a checkpoint restored after a restart).

    An agent middleware that edits the response after the run runs after
    ``after_run``: list :attr:`agent_middleware` first in that agent's
    ``middleware`` for the records to be of the response as it left it. A run
    that waits for a function approval keeps its records in the session's
    state until the run after the approval hands them on.
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

    def rewrite(self, messages: Sequence[Message], agent: str | None) -> list[Message] | None:
        """What ``agent``'s model is sent for ``messages``: each run of messages of other
        agents as one summary message, the rest as it is; None when there is none."""
        out: list[Message] = []
        run: list[Message] = []
        summarized = False
        codec = self.codec or default_codec
        for message in [*messages, None]:
            if message is not None and message.role != "user" and (
                    message.author_name not in (None, agent) or self._by_other(message, agent,
                                                                               codec)):
                run.append(message)
                continue
            if run:
                out += self._summaries(run)
                run, summarized = [], True
            if message is not None:
                out.append(message)
        return out if summarized else None

    @staticmethod
    def _by_other(message: Message, agent: str | None, codec: Codec) -> bool:
        """Whether ``message``, named as ``agent``'s own (or not named), carries records our
        code sealed as another agent's response (a model's reply may carry any name)."""
        if MARK not in message.additional_properties:
            return False
        sealed = _sealed(message, codec)
        return sealed is not None and sealed[2] is not None and sealed[2] != agent

    def _summaries(self, run: Sequence[Message]) -> list[Message]:
        """The summary of ``run``; when one of its messages cannot be written (arguments
        nested deeper than the codec's ``max_depth``, a surrogate pair as two code
        points), that message as the framework hands it on (its text; calls and results
        left out together) between the summaries of the rest, and a warning."""
        try:
            return [self._summary(run)]
        except EncodeError:
            pass
        codec = self.codec or default_codec
        bad: list[int] = []
        for index, message in enumerate(run):
            try:
                codec.dumps(_read(message, codec)[0])
            except EncodeError:
                bad.append(index)
        if not bad:  # the run as a whole is too large for the codec's limits
            bad = list(range(len(run)))
        out: list[Message] = []
        start = 0
        for index in [*bad, len(run)]:
            if start < index:
                try:
                    out.append(self._summary(run[start:index]))
                except EncodeError:
                    out += clean_conversation_for_handoff(list(run[start:index]))
            if index < len(run):
                message = run[index]
                logger.warning("agent_framework handoff: a message of %s could not be written "
                               "into the summary; it is sent as the framework hands it on "
                               "(its text only)", message.author_name or message.role)
                out += clean_conversation_for_handoff([message])
            start = index + 1
        return out

    def _summary(self, run: Sequence[Message]) -> Message:
        """The summary of ``run``, written once for the same content (see ``_WRITTEN``).

        Each message stands for the records it carries while their seal holds,
        else for itself as the request holds it: what the app's middleware
        changed in a message is what the model is sent of it.
        """
        codec = self.codec or default_codec
        report = _Report()
        items: list[Item] = []
        same: list[str] = []  # what the summary is written from, message by message
        carried: list[Item] = []  # the calls and results records brought
        for index, message in enumerate(run):
            report.index = index
            records, written_from, omitted, sealed = _read(message, codec)
            report.omitted += [Omission(index, field, reason) for field, reason in omitted]
            if sealed:
                carried += [item for item in records if item.get("type") in CALL_ITEMS]
            elif carried:
                # A message the records already brought (a workflow that hands on the
                # whole response, not the framework's cleaned copy): a call or result
                # exactly as carried is not sent twice.
                records = [item for item in records
                           if item.get("type") not in CALL_ITEMS or item not in carried]
            items.extend(records)
            same.append(written_from)
        key = (tuple(same), self.codec, self.role, self.attach_media)
        written = _WRITTEN.setdefault(run[0], {})
        summary = written.get(key)
        if summary is None:
            summary = written[key] = _summary_of(items, report, codec, self.role,
                                                 self.attach_media, self.on_report)
        return summary

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Summarize other agents' messages in each model request of this run."""
        context.extend_middleware(self.source_id, _SummaryMiddleware(self, agent.name))

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Mark the response so the messages the framework hands on carry all of it (unless
        :attr:`agent_middleware` wraps this run: it marks the response after the whole agent
        middleware chain)."""
        if context.response is not None and _WRAPPED.get() is not agent:
            if getattr(agent, "agent_middleware", None) and agent not in _WARNED:
                _WARNED.add(agent)
                logger.warning(
                    "agent_framework handoff: agent %s has agent middleware, which runs after "
                    "the records of its response are written; list "
                    "HandoffHistoryProvider.agent_middleware first in its middleware for the "
                    "records to hold what that middleware changes", agent.name)
            context.response.messages[:] = self._hand_on_run(
                context.response.messages, agent.name, state, context.input_messages)

    @property
    def agent_middleware(self) -> AgentMiddleware:
        """An agent middleware that marks each response after every agent middleware listed
        after it: put it first in ``Agent(middleware=[...])`` when another agent middleware
        edits the response after the run (a redaction), so that the records are of the
        response as that middleware left it."""
        return _HandOnMiddleware(self)

    def _hand_on_run(self, messages: Sequence[Message], author: str | None,
                     state: dict[str, Any], inputs: Sequence[Message]) -> list[Message]:
        """:func:`hand_on` of one run's response. A response that waits for a function
        approval is not handed on by the framework: its records wait in the session's state
        for the run that goes on after the approval, so that every call travels with its
        result and the text said with it."""
        report = _Report()
        if any(c.type == "function_approval_request" for m in messages for c in m.contents):
            state[PENDING] = [*state.get(PENDING, []),
                              *(item for m in messages for item in _visible(m, report))]
            return list(messages)
        earlier = list(state.pop(PENDING, None) or [])
        called = {item.get("call_id") for item in earlier if item.get("type") == "function_call"}
        called |= {c.call_id for m in messages for c in m.contents if c.type == "function_call"}
        for message in inputs:  # the approved calls, when the state did not keep them
            for content in message.contents:
                call = getattr(content, "function_call", None)
                if (content.type == "function_approval_response" and isinstance(call, Content)
                        and call.call_id not in called):
                    item = _visible_item(call, "function_call", report)
                    if item is not None:
                        earlier.append(item)
                        called.add(call.call_id)
        return _hand_on(messages, author, self.codec or default_codec, earlier)


# The agents already warned that their agent middleware runs after the records are written.
_WARNED: weakref.WeakSet[object] = weakref.WeakSet()
PENDING = "pending"
"""The key, in the provider's session state, of the records of a run waiting for approval."""
# The agent whose run _HandOnMiddleware wraps, so that after_run leaves the marking to it.
_WRAPPED: contextvars.ContextVar[object] = contextvars.ContextVar(
    "handoff_codec_agent_framework_wrapped", default=None)


class _HandOnMiddleware(AgentMiddleware):
    """Marks an agent's response after the agent middleware listed after it."""

    def __init__(self, provider: HandoffHistoryProvider) -> None:
        self.provider = provider

    async def process(self, context: AgentContext,
                      call_next: Callable[[], Awaitable[None]]) -> None:
        if context.stream or self.provider not in getattr(context.agent, "context_providers",
                                                          ()):
            await call_next()  # streamed: after_run marks it as the stream ends
            return
        token = _WRAPPED.set(context.agent)
        try:
            await call_next()
        finally:
            _WRAPPED.reset(token)
        result = context.result
        if isinstance(result, AgentResponse):
            session = context.session
            state = ({} if session is None
                     else session.state.setdefault(self.provider.source_id, {}))
            result.messages[:] = self.provider._hand_on_run(
                result.messages, getattr(context.agent, "name", None), state, context.messages)
