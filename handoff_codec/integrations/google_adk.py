"""Google ADK handoffs (``pip install 'handoff-codec[google-adk]'``).

``dumps(events)`` / ``loads(text)``
    ADK ``Event``s to one summary text and back, exactly: every event reads
    back equal to what it was (``model_dump()`` compared). Each event becomes
    Responses-API-like items, in the order of its content's parts: text and
    media parts one message (``{"role": "user"|"assistant", "content": ...}``,
    inline bytes as a ``data:`` URL), a ``function_call`` and a
    ``function_call_output`` item per call and result (``call_id``, ``name``,
    ``arguments``/``output`` the JSON objects ADK holds), a ``reasoning`` item
    per thought. The first item of each event holds the event's other fields
    under ``"event"``. ``encode`` reads every event back as it writes it and
    reports, as an :class:`Omission`, each value that does not come back as it
    was (one that is not JSON, a non-finite float, a tuple...).

``HandoffHistoryPlugin``
    The drop-in piece, one line in the app::

        App(name=..., root_agent=..., plugins=[HandoffHistoryPlugin()])

    ADK hands another agent's events on as user-role "For context:" text
    (``google/adk/flows/llm_flows/context/_fencing.py`` in google-adk 2.13):
    thoughts, whitespace-only text and call ids are dropped and arguments and
    results are written with Python ``str()``. Before each model call the
    plugin replaces each run of those renderings in the request with one user
    message (:func:`summary_message`): the summary of the same events, exact,
    with their images and files as parts of that message. The user's and the
    current agent's own contents stay as ADK built them. :func:`read_summary`
    reads such a message back.

Private use: ADK has no public way to tell which contents of a request render
another agent's events. The plugin asks ADK's own renderer,
``google.adk.flows.llm_flows.context._fencing._present_other_agent_message``,
what each event became and finds that in the request; this is the one use of
a private ADK name in the package, tested against google-adk 2.13.0. Without
it (another ADK version) the other functions work and the plugin refuses to
start, with that reason.

This module imports ``google.adk`` when it is imported.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

try:
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.events import Event
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "handoff_codec.integrations.google_adk needs Google ADK (the 'google.adk' "
        f"package, from google-adk), which could not be imported: {exc}. "
        "Install it with: pip install 'handoff-codec[google-adk]'"
    ) from exc

from ..format import Codec, default_codec
from .report import Encoded, Omission, warn_if_omitted

_adk_rendering: Callable[..., Event | None] | None
try:  # the one private ADK name (see the module docstring)
    from google.adk.flows.llm_flows.context._fencing import (
        _present_other_agent_message as _adk_rendering,
    )
except ImportError:  # pragma: no cover - google-adk other than the versions tested
    _adk_rendering = None

__all__ = [
    "HandoffHistoryPlugin",
    "HistoryReport",
    "dumps",
    "encode",
    "loads",
    "read_summary",
    "summary_message",
]

Item = dict[str, Any]
Json = dict[str, Any]

FRAMEWORK = "Google ADK"
logger = logging.getLogger("handoff_codec")

# The key of the first item of each event: the event's fields, its content's
# parts excepted (they are the items).
EVENT_KEY = "event"
# An event whose content has no parts: one item of this type.
EVENT_ONLY = "adk_event"
# A part that is none of text, a thought, media, a call or a result.
OTHER_PART = "adk_part"
# In the plugin's summary: an image or file attached to the summary message.
ATTACHED = "attached_media"
_TEXT_TYPES = {"user": "input_text", "assistant": "output_text"}


# ------------------------------------------------------------------ writing
def _data_url(blob: types.Blob) -> str | None:
    """``data:<mime>;base64,...`` for inline bytes, or None when the URL cannot say it."""
    mime = blob.mime_type
    if blob.data is None or not mime or not mime.isprintable() or any(c in mime for c in ";,"):
        return None
    return f"data:{mime};base64,{base64.b64encode(blob.data).decode('ascii')}"


def _media(part: types.Part, dumped: Json) -> Json | None:
    """The content part of an ``inline_data`` or ``file_data`` part, or None.

    Inline bytes are a ``data:`` URL and carry no ``mime_type`` key (the URL
    holds it); a file reference always carries ``mime_type`` (null when ADK
    has none), so a ``data:`` URI given as a file stays a file.
    """
    if "inline_data" in dumped and part.inline_data is not None:
        url = _data_url(part.inline_data)
        if url is None:
            return None
        blob = dict(dumped.pop("inline_data"))
        image = (part.inline_data.mime_type or "").startswith("image/")
        element: Json = ({"type": "input_image", "image_url": url} if image
                         else {"type": "input_file", "file_data": url})
        if "display_name" in blob:
            element["display_name"] = blob["display_name"]
        return element
    if "file_data" in dumped and part.file_data is not None:
        file = dict(dumped["file_data"])
        uri = file.get("file_uri")
        if not isinstance(uri, str):
            return None
        del dumped["file_data"]
        mime = file.get("mime_type")
        image = isinstance(mime, str) and mime.startswith("image/")
        element = ({"type": "input_image", "image_url": uri} if image
                   else {"type": "input_file", "file_url": uri})
        element["mime_type"] = mime
        if "display_name" in file:
            element["display_name"] = file["display_name"]
        return element
    return None


def _part_items(parts: Sequence[types.Part], dumps_: Sequence[Json], role: str,
                attachments: list[types.Part] | None) -> list[Item]:
    """The items of one event's parts, in order (see the module docstring).

    With ``attachments``, each image or file part is appended to it and its
    content part is ``{"type": "attached_media", "index": k}``, k its place there.
    """
    items: list[Item] = []
    message: Item | None = None
    for part, dumped in zip(parts, dumps_, strict=True):
        rest = dict(dumped)
        item: Item | None = None
        element: Json | None = None
        tool = next((kind for kind, (field, _, _) in _TOOL_ITEMS.items() if field in rest), None)
        if tool is not None:  # a function call or its response
            field, value_key, adk_key = _TOOL_ITEMS[tool]
            call = dict(rest.pop(field))
            item = {"type": tool}
            for ours, theirs in _tool_keys(value_key, adk_key):
                if theirs in call:
                    item[ours] = call.pop(theirs)
            if call:
                item[field] = call
        elif rest.get("thought") is True and isinstance(rest.get("text"), str):
            del rest["thought"]
            item = {"type": "reasoning",
                    "summary": [{"type": "summary_text", "text": rest.pop("text")}]}
        elif isinstance(rest.get("text"), str):
            element = {"type": _TEXT_TYPES[role], "text": rest.pop("text")}
        else:
            element = _media(part, rest)
            if element is None:
                item, rest = {"type": OTHER_PART, "part": rest}, {}
            elif attachments is not None:  # the part itself, all its fields, goes along
                attachments.append(part.model_copy())
                element, rest = {"type": ATTACHED, "index": len(attachments) - 1}, {}
        if element is not None:
            if rest:
                element["part"] = rest
            if message is None:
                message = {"role": role, "content": []}
                items.append(message)
            message["content"].append(element)
            continue
        assert item is not None
        if rest:
            item["part"] = rest
        items.append(item)
        message = None
    for item in items:  # one plain text part: the readable `role: text` form
        content = item.get("content")
        if isinstance(content, list) and len(content) == 1 and content[0].keys() == {"type",
                                                                                     "text"}:
            item["content"] = content[0]["text"]
    return items


def _event_items(event: Event, attachments: list[types.Part] | None) -> list[Item]:
    """The items of one event; its fields (parts excepted) on the first."""
    envelope: Json = event.model_dump(mode="json", exclude_defaults=True, fallback=_not_json)
    content = event.content
    items: list[Item] = []
    if content is not None and content.parts:
        dumped = envelope["content"]
        envelope["content"] = {key: value for key, value in dumped.items() if key != "parts"}
        if content.role in ("user", "model"):
            role = "user" if content.role == "user" else "assistant"
        else:
            role = "user" if event.author == "user" else "assistant"
        items = _part_items(content.parts, dumped["parts"], role, attachments)
    elif content is not None:  # parts None or []: say which
        envelope["content"]["parts"] = [] if content.parts is not None else None
    if not items:
        items = [{"type": EVENT_ONLY}]
    items[0] = {EVENT_KEY: envelope, **items[0]}
    return items


def _not_json(value: Any) -> None:
    """pydantic's fallback for a value it cannot write as JSON: null (reported by ``encode``)."""
    return None


# ------------------------------------------------------------------ reading
class _ItemError(ValueError):
    pass


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _ItemError(message)


def _data_blob(url: Any) -> Json:
    _expect(isinstance(url, str) and url.startswith("data:"), "inline media must be a data: URL")
    mime, marker, data = url[5:].partition(";base64,")
    _expect(bool(marker) and bool(mime) and not any(char in mime for char in ";,"),
            "a data: URL must read data:<mime type>;base64,<data>")
    try:
        base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise _ItemError(f"the data: URL's base64 is not valid: {exc}") from exc
    return {"data": data, "mime_type": mime}


def _media_part(element: Mapping[str, Any]) -> Json:
    """The ADK part of an image or file content part (see :func:`_media`)."""
    kind = element.get("type")
    file_reference = "mime_type" in element
    if kind == "input_image":
        url_key = "image_url"
    elif kind == "input_file":
        url_key = "file_url" if file_reference else "file_data"
    else:
        raise _ItemError(f"unknown content part type {kind!r}")
    _expect(set(element) <= {"type", url_key, "mime_type", "display_name", "part"},
            f"unexpected keys in a {kind} part: {sorted(element)}")
    source: Json
    if file_reference:
        source = {"file_uri": element.get(url_key), "mime_type": element["mime_type"]}
        field = "file_data"
    else:
        source = _data_blob(element.get(url_key))
        field = "inline_data"
    if "display_name" in element:
        source["display_name"] = element["display_name"]
    return _with(_rest(element), field, source)


def _rest(item: Mapping[str, Any]) -> Json:
    """The part's other fields, which an item or content part holds under ``"part"``."""
    rest = item.get("part", {})
    _expect(isinstance(rest, dict), "'part' must be a JSON object")
    return dict(rest)


def _with(part: Json, field: str, value: Any) -> Json:
    _expect(field not in part, f"'part' repeats {field!r}")
    part[field] = value
    return part


def _attached(element: Mapping[str, Any], attachments: Sequence[types.Part] | None) -> Json:
    """The part an ``attached_media`` content part stands for."""
    if attachments is None:
        raise _ItemError("an attached medium, and no attachments to read it from "
                         "(read a summary message with read_summary)")
    index = element.get("index")
    if set(element) != {"type", "index"} or type(index) is not int or not (
            0 <= index < len(attachments)):
        raise _ItemError(f"no attachment {index!r}")
    part: Json = attachments[index].model_dump(mode="json", exclude_defaults=True)
    return part


def _message_parts(item: Mapping[str, Any], attachments: Sequence[types.Part] | None
                   ) -> list[Json]:
    _expect(set(item) <= {"role", "content"}, f"unexpected keys in a message: {sorted(item)}")
    _expect(item.get("role") in _TEXT_TYPES, "a message's role must be 'user' or 'assistant'")
    content = item.get("content")
    if isinstance(content, str):
        return [{"text": content}]
    if not isinstance(content, list) or not content:
        raise _ItemError("a message's content must be a string or a non-empty list of parts")
    parts = []
    for element in content:
        _expect(isinstance(element, dict), "a content part must be a JSON object")
        if element.get("type") in ("input_text", "output_text"):
            _expect(set(element) <= {"type", "text", "part"}
                    and isinstance(element.get("text"), str),
                    f"unexpected keys in a text part: {sorted(element)}")
            part = _with(_rest(element), "text", element["text"])
        elif element.get("type") == ATTACHED:
            part = _attached(element, attachments)
        else:
            part = _media_part(element)
        parts.append(part)
    return parts


# A tool item's type -> the ADK part field that holds it, and the key of its value in
# the item and in ADK's object (the call's arguments, the response's output).
_TOOL_ITEMS = {"function_call": ("function_call", "arguments", "args"),
               "function_call_output": ("function_response", "output", "response")}


def _tool_keys(value_key: str, adk_key: str) -> tuple[tuple[str, str], ...]:
    """The item's keys and ADK's for a tool part's id, name and value."""
    return ("call_id", "id"), ("name", "name"), (value_key, adk_key)


def _call_part(item: Mapping[str, Any], field: str, value_key: str, adk_key: str) -> Json:
    keys = {"type", "call_id", "name", value_key, field, "part"}
    _expect(set(item) <= keys, f"unexpected keys in a {item['type']} item: {sorted(item)}")
    inner = item.get(field, {})
    _expect(isinstance(inner, dict), f"'{field}' must be a JSON object")
    inner = dict(inner)
    for ours, theirs in _tool_keys(value_key, adk_key):
        if ours in item:
            _expect(theirs not in inner, f"'{field}' repeats {theirs!r}")
            inner[theirs] = item[ours]
    return _with(_rest(item), field, inner)


def _item_parts(item: Mapping[str, Any], attachments: Sequence[types.Part] | None
                ) -> list[Json]:
    """The ADK parts (as JSON) one item stands for."""
    kind = item.get("type")
    if kind is None and "role" in item:
        return _message_parts(item, attachments)
    if kind in _TOOL_ITEMS:
        return [_call_part(item, *_TOOL_ITEMS[kind])]
    if kind == "reasoning":
        _expect(set(item) <= {"type", "summary", "part"}, f"unexpected keys: {sorted(item)}")
        summary = item.get("summary")
        if not (isinstance(summary, list) and len(summary) == 1 and isinstance(summary[0], dict)
                and summary[0].keys() == {"type", "text"} and summary[0]["type"] == "summary_text"
                and isinstance(summary[0]["text"], str)):
            raise _ItemError("a reasoning item holds one summary_text")
        return [_with(_with(_rest(item), "text", summary[0]["text"]), "thought", True)]
    if kind == OTHER_PART:
        _expect(set(item) == {"type", "part"}, f"unexpected keys: {sorted(item)}")
        return [_rest(item)]
    raise _ItemError(f"not an item of an ADK event: type {kind!r}")


def _event(envelope: Json, parts: list[Json]) -> Event:
    data = dict(envelope)
    content = data.get("content")
    if content is not None:
        _expect(isinstance(content, dict), "the event's content must be a JSON object")
        if "parts" in content:
            _expect(not parts, "an event whose content lists no parts has no part items")
        else:
            _expect(bool(parts), "an event's content has parts or says it has none")
            data["content"] = {**content, "parts": parts}
    else:
        _expect(not parts, "an event without content has no part items")
    # JSON text, so that bytes (base64) read as bytes wherever ADK types them.
    return Event.model_validate_json(json.dumps(data))


def _events_of(items: Iterable[Mapping[str, Any]],
               attachments: Sequence[types.Part] | None = None) -> list[Event]:
    events: list[Event] = []
    envelope: Json | None = None
    parts: list[Json] = []
    start = 0
    for index, raw in enumerate(items):
        try:
            _expect(isinstance(raw, dict), "an item must be a JSON object")
            item = dict(raw)
            if EVENT_KEY in item:
                if envelope is not None:
                    events.append(_event(envelope, parts))
                envelope, parts, start = item.pop(EVENT_KEY), [], index
                _expect(isinstance(envelope, dict), "'event' must be a JSON object")
                if item.get("type") == EVENT_ONLY:
                    _expect(item == {"type": EVENT_ONLY}, f"unexpected keys: {sorted(item)}")
                    continue
            else:
                _expect(envelope is not None, "the first item of an event holds 'event'")
            parts.extend(_item_parts(item, attachments))
        except ValueError as exc:
            raise ValueError(f"item {index}: {exc}") from exc
    if envelope is not None:
        try:
            events.append(_event(envelope, parts))
        except ValueError as exc:
            raise ValueError(f"item {start}: {exc}") from exc
    return events


# ------------------------------------------------------------------ checking
_MISSING = object()


def _differences(before: Any, after: Any, path: str) -> Iterable[tuple[str, Any, Any]]:
    """Where ``after`` (read back) differs from ``before``: (path, before, after)."""
    if type(before) is not type(after):
        yield path, before, after
    elif isinstance(before, dict):
        for key in [*before, *(key for key in after if key not in before)]:
            where = f"{path}.{key}" if path else str(key)
            yield from _differences(before.get(key, _MISSING), after.get(key, _MISSING), where)
    elif isinstance(before, list | tuple):
        if len(before) != len(after):
            yield path, before, after
        else:
            for position, (one, other) in enumerate(zip(before, after, strict=True)):
                yield from _differences(one, other, f"{path}[{position}]")
    elif (isinstance(before, float) and not math.isfinite(before)) or before != after:
        yield path, before, after


def _reason(before: Any, after: Any) -> str:
    """Why a value does not read back, in words."""
    if isinstance(before, float) and not math.isfinite(before):
        return f"{before!r} is not a JSON number; written as null"
    if after is _MISSING:
        return "not kept"
    if before is _MISSING:
        return f"read back with a value it did not have: {after!r:.60}"
    if type(before) is not type(after):
        return (f"a {type(before).__name__} is not JSON; it reads back as "
                f"{'null' if after is None else 'a ' + type(after).__name__}")
    return f"reads back as {after!r:.60}"


def _check(event: Event, items: list[Item], index: int,
           attachments: Sequence[types.Part] | None) -> list[Omission]:
    """An Omission for each field of ``event`` that ``items`` do not give back as it was."""
    try:
        (back,) = _events_of(items, attachments)
    except ValueError as exc:  # a value JSON turned into something ADK refuses
        return [Omission(index, "event", f"does not read back: {exc}")]
    if back == event:  # equal fields (and the same class): nothing to name
        return []
    before, after = event.model_dump(), back.model_dump()
    omitted = [] if before == after else [
        Omission(index, path, _reason(one, other))
        for path, one, other in _differences(before, after, "")]
    if type(event) is not Event:
        omitted.append(Omission(index, "type", f"a {type(event).__name__} reads back as an Event"))
    return omitted


# ------------------------------------------------------------------ public
def _encode(messages: Iterable[Event], attachments: list[types.Part] | None
            ) -> tuple[list[Item], list[Omission]]:
    """The items of ``messages``, and an Omission for what they do not give back."""
    items: list[Item] = []
    omitted: list[Omission] = []
    for index, event in enumerate(messages):
        if not isinstance(event, Event):
            raise TypeError(f"message {index} is a {type(event).__name__}, not a "
                            "google.adk.events.Event")
        event_items = _event_items(event, attachments)
        omitted += _check(event, event_items, index, attachments)
        items += event_items
    return items, omitted


def encode(messages: Iterable[Event], *, codec: Codec | None = None) -> Encoded:
    """The summary of ADK events, and what it does not keep.

    Raises TypeError for an item that is not an ``Event``, and the codec's
    EncodeError (a ValueError) for a summary over its limits.
    """
    items, omitted = _encode(messages, None)
    return Encoded((codec or default_codec).dumps(items), tuple(omitted))


def dumps(messages: Iterable[Event], *, codec: Codec | None = None) -> str:
    """The summary text of ADK events (one warning when something was omitted)."""
    encoded = encode(messages, codec=codec)
    warn_if_omitted(encoded, FRAMEWORK)
    return encoded.text


def loads(text: str, *, codec: Codec | None = None) -> list[Event]:
    """The ADK events of a summary written by :func:`dumps`.

    Raises ValueError (``handoff_codec.DecodeError`` for the text, or one
    naming the item) for text that does not hold ADK events.
    """
    return _events_of((codec or default_codec).loads(text))


def summary_message(messages: Iterable[Event], *, codec: Codec | None = None,
                    attach_media: bool = True) -> tuple[types.Content, Encoded]:
    """The user message that hands ``messages`` on, as :class:`HandoffHistoryPlugin` writes it.

    Its first part is the summary text. With ``attach_media``, each image or
    file part of the events follows it as a part of its own, and the text
    holds ``{"type": "attached_media", "index": k}`` in its place (k from 0),
    so inline bytes are not written as base64 text; without, the message is
    the text of :func:`encode`. Also the text and what it does not keep.
    """
    attachments: list[types.Part] | None = [] if attach_media else None
    items, omitted = _encode(messages, attachments)
    text = (codec or default_codec).dumps(items)
    message = types.Content(role="user", parts=[types.Part(text=text), *(attachments or [])])
    return message, Encoded(text, tuple(omitted))


def read_summary(message: types.Content, *, codec: Codec | None = None) -> list[Event]:
    """The ADK events of a summary message (:func:`summary_message`, the plugin's).

    Raises ValueError as :func:`loads` does, and for an attachment the
    message does not have.
    """
    parts = message.parts or []
    if not parts or parts[0].text is None:
        raise ValueError("a summary message starts with the summary text")
    return _events_of((codec or default_codec).loads(parts[0].text), parts[1:])


# ------------------------------------------------------------------ the plugin
@dataclass(frozen=True)
class HistoryReport:
    """What :class:`HandoffHistoryPlugin` did to one model request.

    ``agent`` is the agent whose model is called; ``summaries`` the summary
    messages written and ``events`` the other agents' events they hold;
    ``thoughts`` the thought parts they hold. ``omitted`` names what the
    summaries leave out (``index`` is the event's position in
    ``session.events``), thoughts dropped by ``include_thoughts=False``
    included. ``fallback`` says why the request was left as ADK built it, if it
    was.
    """

    agent: str
    summaries: int = 0
    events: int = 0
    thoughts: int = 0
    omitted: tuple[Omission, ...] = ()
    fallback: str | None = None


ReportCallback = Callable[[HistoryReport], None]
_THOUGHT_DROPPED = "a thought, dropped (include_thoughts=False)"


def _is_thought(part: types.Part) -> bool:
    return bool(part.thought) and part.function_call is None and part.function_response is None


def _other_agents(events: Sequence[Event], agent: str) -> list[bool]:
    """Whether ADK presents each event to ``agent`` as another agent's (its rule, in 2.13)."""
    callers: dict[str, str] = {}
    for event in events:
        for call in event.get_function_calls():
            if call.id:
                callers[call.id] = event.author
    flags = []
    for event in events:
        other = bool(agent) and event.author not in (agent, "user")
        if not other:
            other = any(callers.get(result.id or "") not in (None, agent, "user")
                        for result in event.get_function_responses())
        flags.append(other)
    return flags


Run = list[tuple[int, int | None]]


def _texts_of(content: types.Content | None) -> tuple[str | None, ...]:
    return tuple(part.text for part in content.parts or ()) if content is not None else ()


def _runs(contents: Sequence[types.Content], events: Sequence[Event], agent: str,
          adk_thoughts: bool) -> tuple[list[Run], list[int]]:
    """Each run of other agents' events with ADK's renderings of them in ``contents``.

    A run holds (event index, content index) pairs; the content index is None
    for an event ADK left out (all thoughts, or whitespace), which joins the
    run it is next to. Runs are cut at the user's and the agent's own events.
    Also the indices of events ADK left out that are next to no run.
    """
    assert _adk_rendering is not None
    runs: list[Run] = []
    unplaced: list[int] = []
    run: Run = []
    pending: Run = []
    cursor = 0
    # Where each content's texts are, to find a rendering without comparing it to every content.
    positions: dict[tuple[str | None, ...], list[int]] = {}
    for position, content in enumerate(contents):
        positions.setdefault(_texts_of(content), []).append(position)

    def close() -> None:
        nonlocal run, pending
        if run:
            runs.append(run + pending)
        else:
            unplaced.extend(index for index, _ in pending)
        run, pending = [], []

    for index, (event, other) in enumerate(zip(events, _other_agents(events, agent), strict=True)):
        if not other:
            close()
            continue
        if event.content is None or not event.content.parts:
            continue
        rendered = _adk_rendering(event, include_thoughts=adk_thoughts)
        if rendered is None:
            pending.append((index, None))
            continue
        found = next((position for position in positions.get(_texts_of(rendered.content), ())
                      if position >= cursor and contents[position] == rendered.content), None)
        if found is None:  # not in this request (another branch, outside the window)
            continue
        run += [*pending, (index, found)]
        pending, cursor = [], found + 1
    close()
    return runs, unplaced


class HandoffHistoryPlugin(BasePlugin):
    """Hands other agents' events to the next agent as one exact summary.

    Before each model call, each run of consecutive contents that ADK rendered
    from other agents' events ("For context: ... [agent] said: ...") is
    replaced by one user message: the summary of those events
    (:func:`encode`), then, with ``attach_media``, their images and files as
    parts. An event ADK left out of the request because it held only
    thoughts or whitespace joins the run next to it.

    ``include_thoughts``: keep other agents' thoughts in the summary; None
    (the default) follows ``RunConfig.include_thoughts_from_other_agents``.
    Dropped thoughts are reported as omissions. ``codec`` writes the summary
    (its preamble, markers, limits, key). ``on_report`` is called with a
    :class:`HistoryReport` after every model request the plugin looked at.

    It never fails a model call: on an error (the codec's limits included)
    the request stays as ADK built it, the report's ``fallback`` says why and
    one warning is logged on the ``handoff_codec`` logger, as it is for an
    omission other than a dropped thought.
    """

    def __init__(
        self,
        *,
        codec: Codec | None = None,
        include_thoughts: bool | None = None,
        attach_media: bool = True,
        on_report: ReportCallback | None = None,
        name: str = "handoff_history",
    ) -> None:
        if _adk_rendering is None:  # pragma: no cover - google-adk other than the versions tested
            raise RuntimeError(
                "HandoffHistoryPlugin needs google-adk's "
                "google.adk.flows.llm_flows.context._fencing._present_other_agent_message "
                "(tested with google-adk 2.13.0), which this google-adk does not have")
        super().__init__(name)
        self.codec = codec or default_codec
        self.include_thoughts = include_thoughts
        self.attach_media = attach_media
        self.on_report = on_report

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Replace other agents' renderings in ``llm_request.contents`` with summaries."""
        agent = callback_context.agent_name
        run_config = callback_context.run_config
        adk_thoughts = bool(run_config and run_config.include_thoughts_from_other_agents)
        keep_thoughts = adk_thoughts if self.include_thoughts is None else self.include_thoughts
        try:
            contents, report = self.rewrite(
                llm_request.contents, callback_context.session.events, agent,
                adk_thoughts=adk_thoughts, include_thoughts=keep_thoughts)
        except Exception as exc:  # the model call must go on: ADK's own rendering
            report = HistoryReport(agent, fallback=f"{type(exc).__name__}: {exc}")
        else:
            llm_request.contents = contents
        if report.fallback is not None or any(
                omission.reason != _THOUGHT_DROPPED for omission in report.omitted):
            logger.warning("Google ADK handoff to %s: %s", agent, report.fallback or (
                f"summary without {', '.join(sorted({o.field for o in report.omitted}))}"))
        if self.on_report is not None:
            self.on_report(report)
        return None

    def rewrite(
        self,
        contents: Sequence[types.Content],
        events: Sequence[Event],
        agent: str,
        *,
        adk_thoughts: bool = False,
        include_thoughts: bool = False,
    ) -> tuple[list[types.Content], HistoryReport]:
        """The request contents for ``agent`` with other agents' renderings summarized.

        ``contents`` is the request ADK built from ``events`` (the session's)
        with ``adk_thoughts`` as ``include_thoughts_from_other_agents``.
        Raises the codec's EncodeError for a summary over its limits.
        """
        runs, unplaced = _runs(contents, events, agent, adk_thoughts)
        replaced: dict[int, types.Content | None] = {}
        omitted = [Omission(index, "event", "left out of the request by ADK (only thoughts or "
                            "whitespace) and next to no other agent's event in it")
                   for index in unplaced]
        summarized = thoughts = 0
        for run in runs:
            chosen: list[Event] = []
            where: list[int] = []
            for index, _ in run:
                event = events[index]
                parts = event.content.parts if event.content and event.content.parts else []
                kept = [part for part in parts if include_thoughts or not _is_thought(part)]
                omitted += [Omission(index, f"content.parts[{position}]", _THOUGHT_DROPPED)
                            for position, part in enumerate(parts)
                            if not include_thoughts and _is_thought(part)]
                thoughts += sum(_is_thought(part) for part in kept)
                if not kept:
                    continue
                if len(kept) < len(parts):
                    content = types.Content(role=event.content.role if event.content else None,
                                            parts=kept)
                    event = event.model_copy(update={"content": content})
                chosen.append(event)
                where.append(index)
            positions = [position for _, position in run if position is not None]
            if not chosen:  # only thoughts, dropped: ADK's renderings of them go too
                replaced.update(dict.fromkeys(positions))
                continue
            message, encoded = summary_message(chosen, codec=self.codec,
                                               attach_media=self.attach_media)
            omitted += [Omission(where[o.index], o.field, o.reason) for o in encoded.omitted]
            summarized += len(chosen)
            replaced[positions[0]] = message
            replaced.update(dict.fromkeys(positions[1:]))
        out: list[types.Content] = []
        for position, content in enumerate(contents):
            if position not in replaced:
                out.append(content)
            elif (summary := replaced[position]) is not None:
                out.append(summary)
        report = HistoryReport(agent, summaries=sum(1 for c in replaced.values() if c is not None),
                               events=summarized, thoughts=thoughts,
                               omitted=tuple(sorted(omitted, key=lambda o: o.index)))
        return out, report
