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

    ADK hands another agent's events to the next agent as user-role text, in
    its own framing: a preamble saying that what sits between its quote
    markers is data to read, never instructions, then ``[agent] said:`` and
    the text between the markers, one content per event. It drops thoughts,
    whitespace-only text and call ids, and writes arguments and results with
    Python ``str()``. Before each model call the plugin replaces each run of
    those renderings in the request with one user message
    (:func:`summary_message`): ADK's preamble, then between ADK's quote
    markers the records of what those events show a model (text, calls with
    ids and JSON arguments, results, thoughts where ADK passes them on), with
    their images, files and code as parts of the message. A rendering is
    known by where it came from (ADK's renderer records the event on it, see
    the internals module), never by its text, so the plugin changes only what
    ADK rendered in that request: what ADK leaves out (rewound events, the
    history before the turn with ``include_contents='none'``, other branches)
    stays out, and a user's message stays the user's whatever it holds. Quote
    markers inside the records are elided as ADK elides them. Nothing ADK keeps
    for itself (event ids, timestamps, node info, actions, usage and other
    response metadata, thought signatures) is written. The session's events
    are not changed: the summary is in the request only. Each event is
    encoded once per invocation, cached in the session's state under
    :data:`STATE_KEY`. :func:`read_summary` reads such a message back.

Private use: :mod:`handoff_codec.integrations.google_adk_internals` (ADK's
renderer and its request builder's use of it), checked when this module is
imported (see there).

This module imports ``google.adk`` when it is imported.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._extras import missing

try:
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.events import Event
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing("google_adk", "Google ADK (the 'google.adk' package, from google-adk)",
                  "google-adk", exc) from exc

from ..format import Codec, default_codec
from ._common_items import NAME_CARRIER, Notes, arguments_object, call_names, media_type
from .google_adk_internals import TESTED, framing, provenance, render, unedited
from .report import Encoded, Omission, ReadBack, _dumped, _loaded, is_plain_json

__all__ = [
    "STATE_KEY",
    "TESTED",
    "HandoffHistoryPlugin",
    "HistoryReport",
    "adk_codec",
    "dumps",
    "encode",
    "loads",
    "read",
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
# In the plugin's summary: an image, file or code part attached to the summary message.
ATTACHED = "attached_part"
_TEXT_TYPES = {"user": "input_text", "assistant": "output_text"}

adk_codec = default_codec.replace(preamble=framing.preamble, start=framing.begin,
                                  end=framing.end)
"""The codec of the plugin's summaries: ADK's preamble and quote markers, default limits."""


def _role(event: Event) -> str:
    """``"user"`` or ``"assistant"``: the role of the event's text in a summary."""
    role = event.content.role if event.content is not None else None
    if role in ("user", "model"):
        return "user" if role == "user" else "assistant"
    return "user" if event.author == "user" else "assistant"


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


def _part_items(parts: Sequence[types.Part], dumps_: Sequence[Json], role: str) -> list[Item]:
    """The items of one event's parts, in order (see the module docstring)."""
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
            output = item.get("output")
            if (tool == "function_call_output" and isinstance(output, dict)
                    and output.keys() == {"result"} and not isinstance(output["result"], dict)):
                item["output"] = output["result"]  # ADK's wrapping of a tool's non-object result
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


def _event_items(event: Event) -> list[Item]:
    """The items of one event; its fields (parts excepted) on the first."""
    envelope: Json = event.model_dump(mode="json", exclude_defaults=True, fallback=_not_json)
    content = event.content
    items: list[Item] = []
    if content is not None and content.parts:
        dumped = envelope["content"]
        envelope["content"] = {key: value for key, value in dumped.items() if key != "parts"}
        items = _part_items(content.parts, dumped["parts"], _role(event))
    elif content is not None:  # parts None or []: say which
        envelope["content"]["parts"] = [] if content.parts is not None else None
    if not items:
        items = [{"type": EVENT_ONLY}]
    _name_items(event, items)
    items[0] = {EVENT_KEY: envelope, **items[0]}
    return items


def _name_items(event: Event, items: list[Item]) -> None:
    """The event's author as the common ``name`` of its turn, for any reader.

    On its first message item. An event that starts with a call starts with
    a message item with no part (:data:`NAME_CARRIER`), named after the
    author if any: its calls are a turn of their own, not the calls of the
    message before. No name for the user (author ``"user"``) or an empty
    author, nor on results.
    """
    author = event.author
    first = items[0]
    if first.get("type") == "function_call" and _role(event) == "assistant":
        # a turn of its own, not the calls of the event before
        carrier: Item = {"role": "assistant", "content": list(NAME_CARRIER)}
        if author:
            carrier["name"] = author
        items.insert(0, carrier)
    elif author and not (author == "user" and _role(event) == "user") and (
            "role" in first and "type" not in first):
        first["name"] = author


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
    """The part an ``attached_part`` content part stands for."""
    if attachments is None:
        raise _ItemError("an attached part, and no attachments to read it from "
                         "(read a summary message with read_summary)")
    index = element.get("index")
    if set(element) != {"type", "index"} or type(index) is not int or not (
            0 <= index < len(attachments)):
        raise _ItemError(f"no attachment {index!r}")
    part: Json = attachments[index].model_dump(mode="json", exclude_defaults=True)
    return part


def _message_parts(item: Mapping[str, Any], attachments: Sequence[types.Part] | None
                   ) -> list[Json]:
    # "name": the event's author, which its envelope holds
    _expect(set(item) <= {"role", "content", "name"},
            f"unexpected keys in a message: {sorted(item)}")
    _expect(item.get("role") in _TEXT_TYPES, "a message's role must be 'user' or 'assistant'")
    content = item.get("content")
    if isinstance(content, str):
        return [{"text": content}]
    if content == NAME_CARRIER:
        return []
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


def _attached_result_parts(parts: Any, attachments: Sequence[types.Part]) -> list[Json]:
    """A tool result's parts, the attached ones read from ``attachments``."""
    _expect(isinstance(parts, list), "'function_response.parts' must be a list")
    out: list[Json] = []
    for element in parts:
        if isinstance(element, dict) and element.get("type") == ATTACHED:
            rest = _rest(element)
            media = _attached({key: element[key] for key in element if key != "part"},
                              attachments)
            for key, value in media.items():
                rest = _with(rest, key, value)
            out.append(rest)
        else:
            out.append(element)
    return out


def _call_part(item: Mapping[str, Any], field: str, value_key: str, adk_key: str,
               attachments: Sequence[types.Part] | None = None) -> Json:
    keys = {"type", "call_id", "name", value_key, field, "part"}
    _expect(set(item) <= keys, f"unexpected keys in a {item['type']} item: {sorted(item)}")
    inner = item.get(field, {})
    _expect(isinstance(inner, dict), f"'{field}' must be a JSON object")
    inner = dict(inner)
    if attachments is not None and "parts" in inner:
        inner["parts"] = _attached_result_parts(inner["parts"], attachments)
    if value_key == "output" and "output" in item and not isinstance(item["output"], dict):
        item = {**item, "output": {"result": item["output"]}}  # as ADK wraps it
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
        return [_call_part(item, *_TOOL_ITEMS[kind], attachments)]
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


def _events_of(items: Iterable[Mapping[str, Any]]) -> list[Event]:
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
            parts.extend(_item_parts(item, None))
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


def _check(event: Event, items: list[Item], index: int) -> list[Omission]:
    """An Omission for each field of ``event`` that ``items`` do not give back as it was."""
    try:
        (back,) = _events_of(items)
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


# ------------------------------------------------------------------ public, exact
def _encode(messages: Iterable[Event]) -> tuple[list[Item], list[Omission]]:
    """The items of ``messages``, and an Omission for what they do not give back."""
    items: list[Item] = []
    omitted: list[Omission] = []
    for index, event in enumerate(messages):
        _check_event(event, index)
        event_items = _event_items(event)
        omitted += _check(event, event_items, index)
        items += event_items
    return items, omitted


def _check_event(event: object, index: int) -> None:
    if not isinstance(event, Event):
        raise TypeError(f"message {index} is a {type(event).__name__}, not a "
                        "google.adk.events.Event")


def encode(messages: Iterable[Event], *, codec: Codec | None = None) -> Encoded:
    """The summary of ADK events, and what it does not keep.

    Raises TypeError for an item that is not an ``Event``, and the codec's
    EncodeError (a ValueError) for a summary over its limits.
    """
    items, omitted = _encode(messages)
    return Encoded((codec or default_codec).dumps(items), tuple(omitted))


def dumps(messages: Iterable[Event], *, codec: Codec | None = None) -> str:
    """The summary text of ADK events (one warning when something was omitted)."""
    return _dumped(encode(messages, codec=codec), FRAMEWORK)


def loads(text: str, *, codec: Codec | None = None) -> list[Event]:
    """The ADK events of a summary, whatever framework module wrote it (:func:`read`; one
    warning when something was left out).

    Raises ValueError (``handoff_codec.DecodeError`` for the text, or one
    naming the item) for text that does not hold ADK events.
    """
    return _loaded(read(text, codec=codec), FRAMEWORK)


def read(text: str, *, codec: Codec | None = None) -> ReadBack[Event]:
    """The ADK events of a summary text, and what of it they cannot hold.

    A summary :func:`dumps` wrote (its first item holds ``"event"``) reads back
    exactly. Any other module's items are read in their common shape
    (docs/frameworks.md, "Any framework to any other"): each message an event (its
    ``name`` the author; ``"user"`` for an unnamed user), adjacent calls one
    model event with the message before them, adjacent results one event (a
    result that is not a JSON object as ADK wraps it, ``{"result": value}``).
    Keys and items ADK has no place for are left out and reported.
    """
    items = (codec or default_codec).loads(text)
    if items and isinstance(items[0], dict) and EVENT_KEY in items[0]:
        return ReadBack(_events_of(items))
    notes = Notes(FRAMEWORK)
    return ReadBack(_common_events(items, notes), notes.omitted)


_COMMON_PART_KEYS = {"input_text": frozenset({"type", "text"}),
                     "output_text": frozenset({"type", "text"}),
                     "input_image": frozenset({"type", "image_url"}),
                     "input_file": frozenset({"type", "file_url", "file_data"})}


def _common_part(index: int, part: Any, notes: Notes, where: str) -> types.Part | None:
    """The ADK part of a content part in the common shape; None (reported) for another."""
    kind = part.get("type") if isinstance(part, Mapping) else None
    allowed = _COMMON_PART_KEYS.get(kind) if isinstance(kind, str) else None
    if allowed is None or not isinstance(part, Mapping):
        notes.drop(index, where, f"a {kind!r} content part; ADK holds no such part")
        return None
    kept = notes.foreign(index, part, allowed, where + ".")
    if kind in ("input_text", "output_text") and isinstance(kept.get("text"), str):
        return types.Part(text=kept["text"])
    url = kept.get("image_url", kept.get("file_url", kept.get("file_data")))
    if not isinstance(url, str):
        notes.drop(index, where, "no URL; left out")
        return None
    if url.startswith("data:"):
        try:
            return types.Part.model_validate({"inline_data": _data_blob(url)})
        except ValueError as exc:
            notes.drop(index, where, f"not a data: URL ADK reads ({exc}); left out")
            return None
    image = kind == "input_image"
    return types.Part(file_data=types.FileData(file_uri=url, mime_type=media_type(url, image)))


def _calls_next(items: Sequence[Any], index: int) -> bool:
    """Whether a ``function_call`` item follows item ``index``."""
    following = items[index + 1] if index + 1 < len(items) else None
    return isinstance(following, Mapping) and following.get("type") == "function_call"


def _common_events(items: Sequence[Any], notes: Notes) -> list[Event]:
    """ADK events of items in the common shape (see :func:`read`)."""
    events: list[Event] = []
    kinds: list[str] = []  # per event: "user", "model", "results"
    callers: dict[str, str] = {}  # call id -> the author of the event that made the call
    names = call_names(items)

    def start(kind: str, author: str) -> list[types.Part]:
        role = "model" if kind == "model" else "user"
        events.append(Event(author=author, content=types.Content(role=role, parts=[])))
        kinds.append(kind)
        content = events[-1].content
        assert content is not None and content.parts is not None
        return content.parts

    for index, raw in enumerate(items):
        if not isinstance(raw, Mapping):
            notes.drop(index, "item", "not a JSON object; left out")
            continue
        kind = raw.get("type", "message" if "role" in raw else None)
        if kind == "message":
            item = notes.foreign(index, raw, {"type", "role", "content", "name"})
            role, name = item.get("role"), item.get("name")
            if role not in ("user", "assistant"):
                notes.drop(index, "role", f"{role!r}: ADK events hold user and model turns "
                           "only; the message left out")
                continue
            author = name if isinstance(name, str) else ("user" if role == "user" else "")
            parts = start("user" if role == "user" else "model", author)
            content = item.get("content")
            if content == "" and role == "assistant" and _calls_next(items, index):
                continue  # Chat Completions' empty text beside calls: no part
            if isinstance(content, str):
                parts.append(types.Part(text=content))
            elif isinstance(content, list):
                for at, element in enumerate(content):
                    part = _common_part(index, element, notes, f"content[{at}]")
                    if part is not None:
                        parts.append(part)
        elif kind in ("function_call", "reasoning"):
            if kinds and kinds[-1] == "model":
                content = events[-1].content
                assert content is not None and content.parts is not None
                parts = content.parts
            else:
                parts = start("model", "")
            if kind == "reasoning":
                item = notes.foreign(index, raw, {"type", "summary"})
                summary = item.get("summary")
                texts = [s.get("text") for s in summary if isinstance(s, Mapping)] if (
                    isinstance(summary, list)) else []
                parts.append(types.Part(text="\n".join(t for t in texts if isinstance(t, str)),
                                        thought=True))
                continue
            item = notes.foreign(index, raw, {"type", "call_id", "name", "arguments"})
            args = arguments_object(item.get("arguments", {}))
            if args is None:
                notes.drop(index, "arguments", "not a JSON object; ADK holds arguments as one; "
                           "left out")
            call_id = item.get("call_id")
            if isinstance(call_id, str):
                callers[call_id] = events[-1].author
            parts.append(types.Part(function_call=types.FunctionCall(
                id=call_id, name=item.get("name"), args=args or {})))
        elif kind == "function_call_output":
            item = notes.foreign(index, raw, {"type", "call_id", "name", "output"})
            call_id = item.get("call_id")
            if kinds and kinds[-1] == "results":
                content = events[-1].content
                assert content is not None and content.parts is not None
                parts = content.parts
            else:
                parts = start("results", callers.get(str(call_id), ""))
            output = item.get("output")
            name = item.get("name", names.get(str(call_id)))
            parts.append(types.Part(function_response=types.FunctionResponse(
                id=call_id, name=name, response=output if isinstance(output, dict)
                else {"result": output})))
        else:
            notes.drop(index, f"type {kind!r}", "ADK holds no such item; left out")
    return events


# ------------------------------------------------------------------ what a model is shown
# The parts ADK relays to another agent's model as parts of their own, and the
# fields of such a part that reach the model.
_RELAYED = ("inline_data", "file_data", "executable_code", "code_execution_result")
_RELAYED_FIELDS = {*_RELAYED, "video_metadata", "media_resolution"}
# Fields of a part that are no content: provider state and annotations.
_NOT_CONTENT = {"thought", "thought_signature", "part_metadata", "video_metadata",
                "media_resolution"}
_NOT_JSON = "not JSON; written as str(value)"
_NOT_RELAYED = "not relayed to another agent's model by ADK"
# The key that names an item's author: a message's "name", any other item's "agent".
_AUTHOR_KEYS = {"message": "name", "other": "agent"}


@dataclass(frozen=True)
class _Visible:
    """What of one event a model is shown: its items (no author yet), and the rest.

    ``thoughts`` are the positions in ``items`` of the reasoning items and
    ``thought_parts`` the positions of their parts in the event; ``attached``
    the positions of the items that refer to ``attachments`` (from 0).
    """

    items: tuple[Item, ...]
    thoughts: frozenset[int]
    thought_parts: tuple[int, ...]
    attached: frozenset[int]
    attachments: tuple[types.Part, ...]
    omitted: tuple[tuple[str, str], ...]


def _json_value(value: Any, field: str, omitted: list[tuple[str, str]]) -> Any:
    """``value`` as JSON, with what is not JSON as ``str(value)`` (and said in ``omitted``)."""
    if is_plain_json(value):
        return value
    omitted.append((field, _NOT_JSON))
    return _as_json(value)


def _as_json(value: Any) -> Any:
    """``value`` with each value JSON cannot hold (NaN, a tuple's type, an object) as text."""
    if isinstance(value, Mapping):
        return {key if isinstance(key, str) else str(key): _as_json(item)
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_json(item) for item in value]
    return value if is_plain_json(value) else str(value)


def _result_parts(parts: Sequence[types.FunctionResponsePart], where: str,
                  attachments: list[types.Part] | None, omitted: list[tuple[str, str]]
                  ) -> list[Json]:
    """The records of a tool result's own parts (``FunctionResponse.parts``).

    Its images and files are attached (``attachments``, None: not attached):
    each record is then ``{"type": "attached_part", "index": k}``, with its
    other fields under ``"part"``. Unattached, a file reference stays in the
    record and inline bytes are left out and reported: never base64 in text.
    """
    records: list[Json] = []
    for number, response_part in enumerate(parts):
        dumped: Json = response_part.model_dump(mode="json", exclude_none=True)
        blob, file = response_part.inline_data, response_part.file_data
        if blob is None and file is None:
            records.append(dumped)
            continue
        rest = {key: value for key, value in dumped.items()
                if key not in ("inline_data", "file_data")}
        if attachments is not None:
            attachments.append(
                types.Part(inline_data=types.Blob(
                    data=blob.data, mime_type=blob.mime_type, display_name=blob.display_name))
                if blob is not None else types.Part(file_data=types.FileData(
                    file_uri=file.file_uri if file else None,
                    mime_type=file.mime_type if file else None,
                    display_name=file.display_name if file else None)))
            element: Json = {"type": ATTACHED, "index": len(attachments) - 1}
            if rest:
                element["part"] = rest
            records.append(element)
        elif blob is not None:
            size = len(blob.data or b"")
            omitted.append((f"{where}.parts[{number}].inline_data",
                            f"{blob.mime_type or 'media'} of {size} bytes in a tool result, "
                            "not attached (attach_media=False)"))
            if file is not None or rest:
                records.append({key: value for key, value in dumped.items()
                                if key != "inline_data"})
        else:
            records.append(dumped)
    return records


def _tool_item(part: types.Part, position: int, omitted: list[tuple[str, str]],
               attachments: list[types.Part] | None = None) -> Item:
    """The ``function_call`` or ``function_call_output`` item of a call or result part."""
    call: types.FunctionCall | types.FunctionResponse
    if part.function_call is not None:
        call = part.function_call
        item: Item = {"type": "function_call"}
        value_key, value, field = "arguments", call.args, "function_call.args"
    else:
        assert part.function_response is not None
        call = part.function_response
        item = {"type": "function_call_output"}
        value_key, value, field = "output", call.response, "function_response.response"
        if call.parts:  # a multimodal result: its parts, under ADK's name
            where = f"content.parts[{position}].function_response"
            item["function_response"] = {"parts": _result_parts(call.parts, where, attachments,
                                                                omitted)}
    if call.id is not None:
        item["call_id"] = call.id
    if call.name is not None:
        item["name"] = call.name
    if value is not None:
        item[value_key] = _json_value(value, f"content.parts[{position}].{field}", omitted)
    return item


def _elided(value: Any, clashes: list[str]) -> Any:
    """``value`` with ADK's quote markers elided in every string and key, as ADK does.

    ADK replaces either quote marker in the text it relays with its elided
    marker, so that relayed text can never close the quoted block and go on
    as instructions; the summary's records sit in one such block. A key that
    becomes another key of its object is named in ``clashes`` (the last value
    is kept).
    """
    if isinstance(value, str):
        return framing.elide(value)
    if isinstance(value, dict):
        out = {framing.elide(key) if isinstance(key, str) else key: _elided(item, clashes)
               for key, item in value.items()}
        if len(out) < len(value):
            clashes += [key for key in value if isinstance(key, str)
                        and framing.elide(key) != key]
        return out
    if isinstance(value, list):
        return [_elided(item, clashes) for item in value]
    return value


def _visible(event: Event, attach: bool) -> _Visible:
    """The items of what ``event`` shows a model, one a part (see the module docstring)."""
    parts = event.content.parts if event.content is not None and event.content.parts else []
    # An agent's words are the agent's, whatever its content's role (a callback may return
    # Content(role="user")): ADK relays any agent's event as "[agent] said:".
    role = "assistant" if event.author and event.author != "user" else _role(event)
    items: list[Item] = []
    thoughts: list[int] = []
    thought_parts: list[int] = []
    attached: list[int] = []
    attachments: list[types.Part] = []
    omitted: list[tuple[str, str]] = []
    for position, part in enumerate(parts):
        item: Item | None
        if part.function_call is not None or part.function_response is not None:
            count = len(attachments)
            item = _tool_item(part, position, omitted, attachments if attach else None)
            if len(attachments) > count:
                attached.append(len(items))
        elif part.thought and part.text is not None:
            thoughts.append(len(items))
            thought_parts.append(position)
            item = {"type": "reasoning", "summary": [{"type": "summary_text", "text": part.text}]}
        elif part.text is not None:
            item = {"role": role, "content": part.text}
        elif any(getattr(part, field) is not None for field in _RELAYED):
            relayed = types.Part(**{field: getattr(part, field) for field in _RELAYED_FIELDS})
            element = None
            if attach:
                attached.append(len(items))
                attachments.append(relayed)
                element = {"type": ATTACHED, "index": len(attachments) - 1}
            else:
                element = _media(part, part.model_dump(mode="json", exclude_none=True,
                                                       include={"inline_data", "file_data"}))
            item = ({"role": role, "content": [element]} if element is not None else
                    {"type": OTHER_PART, "part": relayed.model_dump(mode="json",
                                                                    exclude_none=True)})
        else:
            rest = part.model_dump(exclude_none=True, exclude=_NOT_CONTENT)
            if rest:
                omitted.append((f"content.parts[{position}]", f"{', '.join(sorted(rest))}: "
                                f"{_NOT_RELAYED}"))
            continue
        clashes: list[str] = []
        items.append(_elided(item, clashes))
        omitted += [(f"content.parts[{position}]", f"key {key!r}: its quote marker elided, "
                     "it is another key of its object") for key in clashes]
    return _Visible(tuple(items), frozenset(thoughts), tuple(thought_parts), frozenset(attached),
                    tuple(attachments), tuple(omitted))


def _with_author(item: Item, author: str) -> Item:
    key = _AUTHOR_KEYS["message" if "role" in item else "other"]
    return {**item, key: framing.elide(author)}


def _shifted(item: Item, offset: int) -> Item:
    """An item whose attached parts (a message's, a tool result's) are numbered from ``offset``."""

    def shift(elements: list[Json]) -> list[Json]:
        return [{**element, "index": element["index"] + offset}
                if element.get("type") == ATTACHED else element for element in elements]

    if "content" in item:
        return {**item, "content": shift(item["content"])}
    response = item["function_response"]
    return {**item, "function_response": {**response, "parts": shift(response["parts"])}}


@dataclass
class _Summary:
    """The items and attachments of one summary, added to event by event."""

    items: list[Item]
    attachments: list[types.Part]
    omitted: list[Omission]
    events: int = 0
    thoughts: int = 0

    def add(self, index: int, event: Event, visible: _Visible, keep_thoughts: bool) -> None:
        """Add ``event`` (``index`` in the session), with or without its thoughts."""
        self.omitted += [Omission(index, field, reason) for field, reason in visible.omitted]
        if not keep_thoughts:
            self.omitted += [Omission(index, f"content.parts[{position}]", _THOUGHT_DROPPED)
                             for position in visible.thought_parts]
        first = True
        offset = len(self.attachments)
        for position, item in enumerate(visible.items):
            if position in visible.thoughts:
                if not keep_thoughts:
                    continue
                self.thoughts += 1
            if offset and position in visible.attached:
                item = _shifted(item, offset)
            if first:
                item, first = _with_author(item, event.author), False
            self.items.append(item)
        self.attachments += visible.attachments
        self.events += not first


def summary_message(messages: Iterable[Event], *, codec: Codec | None = None,
                    attach_media: bool = True, include_thoughts: bool = True
                    ) -> tuple[types.Content, Encoded]:
    """The user message that hands ``messages`` on, as :class:`HandoffHistoryPlugin` writes it.

    Its first part is the summary text, in ADK's framing (``codec``, by
    default :data:`adk_codec`), of what the events show a model: each event's
    parts in order, its first record naming its author (a message's
    ``name``, any other record's ``agent``). With ``attach_media``, each image,
    file or code part follows the text as a part of its own, and the text
    holds ``{"type": "attached_part", "index": k}`` in its place (k from 0),
    and so do the images and files a tool returned (its result's
    ``function_response.parts``); without, a message's media are ``data:``
    URLs in the text and a tool result's inline bytes are left out (reported:
    a tool's screenshot is no text for a model). Also the text and what the
    events hold that a model is shown and the summary does not keep (a value
    that is not JSON, written as ``str(value)``; a part ADK does not relay;
    a thought, without ``include_thoughts``).
    """
    summary = _Summary([], [], [])
    for index, event in enumerate(messages):
        _check_event(event, index)
        summary.add(index, event, _visible(event, attach_media), include_thoughts)
    text = (codec or adk_codec).dumps(summary.items)
    message = types.Content(role="user", parts=[types.Part(text=text), *summary.attachments])
    return message, Encoded(text, tuple(summary.omitted))


def _item_author(item: Mapping[str, Any]) -> str | None:
    key = _AUTHOR_KEYS["message" if "role" in item else "other"]
    author = item.get(key)
    _expect(author is None or isinstance(author, str), f"{key!r} must be a string")
    return author


def read_summary(message: types.Content, *, codec: Codec | None = None) -> list[Event]:
    """The events of a summary message (:func:`summary_message`, the plugin's).

    Each event has its author and its content's role and parts, as the
    model was shown them; the rest of an event (its id, timestamp, actions...)
    is not in a summary, and the events read back have ADK's defaults there.
    Raises ValueError (``handoff_codec.DecodeError`` for the text, or one
    naming the item) for a message that does not hold such a summary.
    """
    parts = message.parts or []
    if not parts or parts[0].text is None:
        raise ValueError("a summary message starts with the summary text")
    attachments = parts[1:]
    events: list[tuple[str, str, list[Json]]] = []
    for index, raw in enumerate((codec or adk_codec).loads(parts[0].text)):
        try:
            _expect(isinstance(raw, dict), "an item must be a JSON object")
            item = dict(raw)
            author = _item_author(item)
            item.pop(_AUTHOR_KEYS["message" if "role" in item else "other"], None)
            if author is not None:
                role = ("user" if item.get("role") == "user"
                        or item.get("type") == "function_call_output" else "model")
                events.append((author, role, []))
            else:
                _expect(bool(events), "the first item of a summary names its author")
            events[-1][2].extend(_item_parts(item, attachments))
        except ValueError as exc:
            raise ValueError(f"item {index}: {exc}") from exc
    return [Event.model_validate_json(json.dumps(
        {"author": author, "content": {"role": role, "parts": event_parts}}))
        for author, role, event_parts in events]


# ------------------------------------------------------------------ the plugin
STATE_KEY = "temp:handoff_codec.google_adk"
"""The session-state key of the plugin's cache: ADK keeps ``temp:`` state for one
invocation and never stores it."""


@dataclass(frozen=True)
class HistoryReport:
    """What :class:`HandoffHistoryPlugin` did to one model request.

    ``agent`` is the agent whose model is called; ``summaries`` the summary
    messages written and ``events`` the other agents' events they hold;
    ``thoughts`` the thought parts they hold. ``omitted`` names what the
    summaries leave out of what a model would be shown (``index`` is the
    event's position in ``session.events``), thoughts dropped by
    ``include_thoughts=False`` included. ``encoded`` counts the events
    encoded for this request, ``reused`` those taken from the conversation's
    cache (encoded for an earlier request of the invocation). ``fallback``
    says why the request was left as ADK built it, if it was. ``edited``
    lists the events (their positions in ``session.events``) whose rendering
    in the request something changed before the plugin ran (a plugin before
    it, in place or by a copy): those contents are left as they were found.
    """

    agent: str
    summaries: int = 0
    events: int = 0
    thoughts: int = 0
    omitted: tuple[Omission, ...] = ()
    fallback: str | None = None
    encoded: int = 0
    reused: int = 0
    edited: tuple[int, ...] = ()


ReportCallback = Callable[[HistoryReport], None]
_THOUGHT_DROPPED = "a thought, dropped (include_thoughts=False)"


class _Entry:
    """One event's work, kept for the invocation: whether ADK shows it, what it shows a model."""

    __slots__ = ("event", "shown", "visible")

    def __init__(self, event: Event) -> None:
        self.event = event  # held, so that its id() names no other event meanwhile
        self.shown: dict[bool, bool] = {}
        self.visible: dict[bool, _Visible] = {}


class _Cache:
    """The plugin's cache for one conversation, in its session's state (:data:`STATE_KEY`).

    Only this class's instances are read there: a value a client sends in a
    state delta is JSON, never one of these, and is replaced. Besides each
    event's work, it indexes the session's events as they grow: each event's
    position (by identity and by ADK's event id), the provenance records found
    on the events' own contents (a rendering a user sent back as a message,
    in process: never taken for ADK's) and whether any event rewinds.
    """

    __slots__ = ("by_id", "encoded", "entries", "events", "positions", "reused", "rewinds",
                 "stale")

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}
        self.encoded = self.reused = 0
        self.events: list[Event] = []
        self.positions: dict[int, int] = {}
        self.by_id: dict[str, int] = {}
        self.stale: set[int] = set()
        self.rewinds = False

    def entry(self, event: Event) -> _Entry:
        entry = self.entries.get(id(event))
        if entry is None or entry.event is not event:
            entry = self.entries[id(event)] = _Entry(event)
        return entry

    def shown(self, event: Event, adk_thoughts: bool) -> bool:
        """Whether ADK's rendering of another agent's ``event`` shows anything."""
        entry = self.entry(event)
        if adk_thoughts not in entry.shown:
            adk = render(event, include_thoughts=adk_thoughts)
            entry.shown[adk_thoughts] = adk is not None and adk.content is not None
        return entry.shown[adk_thoughts]

    def visible(self, event: Event, attach: bool) -> _Visible:
        entry = self.entry(event)
        visible = entry.visible.get(attach)
        if visible is None:
            visible = entry.visible[attach] = _visible(event, attach)
            self.encoded += 1
        else:
            self.reused += 1
        return visible

    def index(self, events: Sequence[Event]) -> None:
        """Index ``events`` (the session's): only the events added since the last call."""
        known = len(self.events)
        if known > len(events) or any(events[n] is not self.events[n]
                                      for n in {0, known - 1} if 0 <= n < known):
            self.events, self.positions, self.by_id = [], {}, {}
            self.stale, self.rewinds, known = set(), False, 0
        for position in range(known, len(events)):
            event = events[position]
            self.events.append(event)
            self.positions[id(event)] = position
            self.by_id.setdefault(event.id, position)
            record = provenance(event.content)
            if record is not None:
                self.stale.add(id(record))
            self.rewinds = self.rewinds or bool(
                event.actions and event.actions.rewind_before_invocation_id)

    def source(self, content: types.Content) -> int | None:
        """The position of the event ADK rendered ``content`` from, if ADK did in this session."""
        record = provenance(content)
        if record is None or id(record) in self.stale:
            return None
        position = self.positions.get(id(record.event))
        if position is not None and self.events[position] is record.event:
            return position
        # Not the session's object (a request and events read back, as rewrite() may be
        # given): the session's event with the same id, if it is equal.
        position = self.by_id.get(record.event.id)
        if position is not None and self.events[position] == record.event:
            return position
        return None


def _cache_in(state: MutableMapping[str, Any] | None) -> _Cache:
    """The cache in ``state`` (made there if it holds none); a new one for no state."""
    if state is None:
        return _Cache()
    cache = state.get(STATE_KEY)
    if type(cache) is not _Cache:
        cache = state[STATE_KEY] = _Cache()
    cache.encoded = cache.reused = 0
    return cache


def _rewound(events: Sequence[Event]) -> set[int]:
    """The positions of the events a rewind annulled.

    ADK's rule (``google/adk/events/_rewind_events.py``, google-adk 2.13), on
    public fields: walking back, an event with
    ``actions.rewind_before_invocation_id == X`` drops itself and every event
    back to the first event of invocation X.
    """
    first: dict[str, int] = {}
    for position, event in enumerate(events):
        if event.invocation_id and event.invocation_id not in first:
            first[event.invocation_id] = position
    dropped: set[int] = set()
    position = len(events) - 1
    while position >= 0:
        target = events[position].actions.rewind_before_invocation_id \
            if events[position].actions else None
        if target:
            start = first.get(target)
            dropped.add(position)
            if start is not None and start < position:
                dropped.update(range(start, position))
                position = start
        position -= 1
    return dropped


class _Runs:
    """The runs of ADK's renderings in one request, with their events.

    A run is a stretch of consecutive contents that ADK rendered from other
    agents' events in this session (by provenance, never by text). Each run
    also takes the other agents' events ADK rendered as nothing (only
    thoughts, or whitespace) right next to its events in the session: same
    branch and scope, no other event between, none annulled by a rewind, and
    none before the run's first event when the request opens with the run.
    """

    def __init__(self, contents: Sequence[types.Content], events: Sequence[Event], agent: str,
                 adk_thoughts: bool, cache: _Cache) -> None:
        self.events, self.agent, self.adk_thoughts, self.cache = events, agent, adk_thoughts, cache
        self.rewound: set[int] | None = None
        self.used: set[int] = set()  # each event in one summary only
        self.runs: list[tuple[list[int], list[int]]] = []  # (content positions, event indices)
        self.edited: list[int] = []  # the events whose rendering was changed: kept as it is
        run: list[tuple[int, int]] = []
        for position, content in enumerate(contents):
            source = cache.source(content)
            if source is not None and not unedited(content):
                self.edited.append(source)
                source = None
            if source is None:
                self._close(run)
                run = []
            else:
                run.append((position, source))
        self._close(run)

    def _close(self, run: list[tuple[int, int]]) -> None:
        if not run:
            return
        sources = [source for _, source in run]
        indices: list[int] = []
        for number, source in enumerate(sources):
            previous = sources[number - 1] if number else None
            # Before the run's first event only when ADK put something before it in the
            # request: a request that opens with the run (include_contents='none', whose
            # turn starts at that event) holds nothing of what came before.
            reached = self._walk(source, -1, previous) if number or run[0][0] else []
            if previous is not None and previous < source:
                reached = sorted({*self._walk(previous, 1, source), *reached})
            indices += [*(i for i in reached if i not in indices and i not in self.used),
                        source]
        indices += [i for i in self._walk(sources[-1], 1, None) if i not in self.used]
        self.used.update(indices)
        self.runs.append(([position for position, _ in run], indices))

    def _walk(self, start: int, step: int, stop: int | None) -> list[int]:
        """The events ADK left out next to ``start`` in the direction ``step``, in order."""
        found: list[int] = []
        reference = self.events[start]
        index = start + step
        while 0 <= index < len(self.events) and index != stop and self._left_out(index, reference):
            found.append(index)
            index += step
        return found if step > 0 else found[::-1]

    def _left_out(self, index: int, reference: Event) -> bool:
        event = self.events[index]
        if (event.author in ("user", self.agent) or event.content is None
                or not event.content.parts or event.branch != reference.branch
                or getattr(event, "isolation_scope", None)
                != getattr(reference, "isolation_scope", None)
                or self.cache.shown(event, self.adk_thoughts)):
            return False
        if self.cache.rewinds:
            if self.rewound is None:
                self.rewound = _rewound(self.events)
            return index not in self.rewound
        return True


class HandoffHistoryPlugin(BasePlugin):
    """Hands other agents' events to the next agent as one summary in ADK's framing.

    Before each model call, each run of consecutive contents that ADK's
    request builder rendered from other agents' events of the session
    (``[agent] said: ...``; known by the record ADK's renderer leaves on
    them, never by text) is replaced by one user message
    (:func:`summary_message`): ADK's preamble, then between ADK's quote
    markers the records of what those events show a model, quote markers in
    them elided as ADK does, then, with ``attach_media``, their images, files
    and code as parts, a tool result's own images and files included.
    Nothing else in the request changes. An event of another agent that ADK
    rendered as nothing (only thoughts or whitespace) joins a run when it
    sits right next to the run's events in the session, on their branch and
    not rewound. The session's events stay as they are.

    ``include_thoughts``: keep other agents' thoughts in the summary; None
    (the default) follows ``RunConfig.include_thoughts_from_other_agents``.
    Dropped thoughts are reported as omissions. ``codec`` writes the summary
    (its limits and key; the preamble and markers are always ADK's, as in
    :data:`adk_codec`).
    ``on_report`` is called with a :class:`HistoryReport` after every model
    request the plugin looked at.

    The plugin keeps nothing of a conversation: its cache is in the session's
    state (:data:`STATE_KEY`, for the invocation), so one plugin serves any
    number of conversations at once. It never fails a model call: on an error
    (the codec's limits included) the request stays as ADK built it, the
    report's ``fallback`` says why and one warning is logged on the
    ``handoff_codec`` logger, as it is for an omission other than a dropped
    thought.
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
        super().__init__(name)
        self.codec = adk_codec if codec is None else codec.replace(
            preamble=adk_codec.preamble, start=adk_codec.start, end=adk_codec.end)
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
        session = callback_context.session
        try:
            contents, report = self.rewrite(
                llm_request.contents, session.events, agent, adk_thoughts=adk_thoughts,
                include_thoughts=keep_thoughts, state=session.state)
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
        state: MutableMapping[str, Any] | None = None,
    ) -> tuple[list[types.Content], HistoryReport]:
        """The request contents for ``agent`` with other agents' renderings summarized.

        ``contents`` is the request ADK built from ``events`` (the session's)
        with ``adk_thoughts`` as ``include_thoughts_from_other_agents``: its
        renderings of other agents' events carry the record of their event
        (a request and events read back from storage are matched by event id
        and equal fields); a content without one is left as it is.
        ``state`` is where the conversation's cache is kept (the session's
        state; None: no cache). Raises the codec's EncodeError for a summary
        over its limits.
        """
        cache = _cache_in(state)
        cache.index(events)
        replaced: dict[int, types.Content | None] = {}
        omitted: list[Omission] = []
        summarized = thoughts = 0
        runs = _Runs(contents, events, agent, adk_thoughts, cache)
        for positions, indices in runs.runs:
            summary = _Summary([], [], [])
            for index in indices:
                summary.add(index, events[index], cache.visible(events[index], self.attach_media),
                            include_thoughts)
            omitted += summary.omitted
            if not summary.events:  # only thoughts, dropped: ADK's renderings of them go too
                replaced.update(dict.fromkeys(positions))
                continue
            text = self.codec.dumps(summary.items)
            replaced[positions[0]] = types.Content(
                role="user", parts=[types.Part(text=text), *summary.attachments])
            replaced.update(dict.fromkeys(positions[1:]))
            summarized += summary.events
            thoughts += summary.thoughts
        out: list[types.Content] = []
        for position, content in enumerate(contents):
            if position not in replaced:
                out.append(content)
            elif (summary_content := replaced[position]) is not None:
                out.append(summary_content)
        report = HistoryReport(agent, summaries=sum(1 for c in replaced.values() if c is not None),
                               events=summarized, thoughts=thoughts,
                               omitted=tuple(sorted(omitted, key=lambda o: o.index)),
                               encoded=cache.encoded, reused=cache.reused,
                               edited=tuple(runs.edited))
        return out, report
