"""LangGraph handoffs as ONE summary message (``pip install 'handoff-codec[langgraph]'``).

LangChain messages to one summary text and back, exactly::

    text = dumps(messages)            # HumanMessage, AIMessage, ToolMessage, ... -> str
    assert loads(text) == messages    # the same classes, fields and content blocks
    encoded = encode(messages)        # the text, and what it could not keep (.omitted)

Swarm (``langgraph_swarm.create_swarm``): :func:`create_handoff_tool` takes the
place of ``langgraph_swarm.create_handoff_tool``, with the same signature. The
receiving agent gets the history as one user message holding the summary (media
attached to it as content blocks), then the handoff's own AIMessage and
ToolMessage. A handoff called in parallel with other tools waits for their
results (it answers "call me again alone") instead of dropping them, so no tool
call is left without its result (langgraph-swarm #26, #58, #69, #83, #94, #105).

Supervisor (``langgraph_supervisor.create_supervisor``): wrap each worker with
:func:`summarize_worker`. The worker's whole run (tool calls, results, errors,
every text block, names) reaches the supervisor as one summary message, which
``output_mode="last_message"`` keeps whole (langgraph-supervisor #110, #185).

This module imports LangChain, LangGraph and langgraph-swarm when it is
imported, and uses only their public API. ``import handoff_codec`` never
imports them.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, cast

try:
    from langchain_core.messages import (
        AIMessage,
        AnyMessage,
        BaseMessage,
        BaseMessageChunk,
        ChatMessage,
        FunctionMessage,
        HumanMessage,
        InvalidToolCall,
        RemoveMessage,
        SystemMessage,
        ToolCall,
        ToolMessage,
        message_chunk_to_message,
    )
    from langchain_core.messages.tool import invalid_tool_call, tool_call
    from langchain_core.runnables import RunnableConfig, RunnableLambda
    from langchain_core.tools import BaseTool, InjectedToolCallId, tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.graph.message import REMOVE_ALL_MESSAGES
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.prebuilt import InjectedState
    from langgraph.pregel import Pregel
    from langgraph.types import Command
    from langgraph_swarm.handoff import METADATA_KEY_HANDOFF_DESTINATION
    from pydantic import ValidationError as PydanticValidationError
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "handoff_codec.integrations.langgraph needs LangChain, LangGraph and langgraph-swarm, "
        f"which could not be imported: {exc}. "
        "Install them with: pip install 'handoff-codec[langgraph]'"
    ) from exc

from ..format import Codec, default_codec
from .report import Encoded, Omission, is_plain_json, warn_if_omitted

__all__ = [
    "SUMMARY_KEY",
    "create_handoff_tool",
    "dumps",
    "encode",
    "flatten",
    "is_summary",
    "loads",
    "summarize_worker",
    "summary_message",
]

logger = logging.getLogger("handoff_codec")

Item = dict[str, Any]

FRAMEWORK = "LangGraph"

#: The ``additional_kwargs`` key that marks a summary message written here:
#: ``{"summary": True, "attachments": [[message, block], ...]}``. Only a message
#: that carries it is ever expanded; text that merely looks like a summary is not.
SUMMARY_KEY = "handoff_codec"

# Item keys this module writes, besides the Responses-API ones.
_TYPE_KEY = "lc_type"  # the message class, for classes whose role alone does not say it
_EXTRA_KEY = "extra"  # fields a message holds beyond its class's own (pydantic extra)
_COMMON = ("name", "id", "additional_kwargs", "response_metadata")

# Roles of the classes whose role says the class; other classes carry ``lc_type``.
_ROLE = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system"}
_CLASS = {role: cls for cls, role in _ROLE.items()}
# Every class a message is written as; a subclass is written as the first it derives from.
_KNOWN: tuple[type[BaseMessage], ...] = (HumanMessage, AIMessage, SystemMessage, ToolMessage,
                                         ChatMessage, FunctionMessage, RemoveMessage)

# Content parts: a LangChain block of one of these types would read back as a
# conversion, so it is written wrapped, ``{"type": "langchain_block", "block": {...}}``.
_WRAP = "langchain_block"
_CONVERTED = frozenset({"input_text", "output_text", "input_image", _WRAP})
_MIME = re.compile(r"[^;,]+\Z")
_DATA_URL = re.compile(r"data:([^;,]+);base64,", re.DOTALL)

# Content blocks the handoff attaches to the summary message instead of writing
# them into its text: providers take media on user turns only, and base64 in
# the text would reach the model as text.
_MEDIA = frozenset({"image", "image_url", "input_image", "file", "input_file", "audio",
                    "input_audio", "video", "media", "document"})
_PLACEHOLDER = "attached_media"


# ---------------------------------------------------------------- JSON values


class _Omissions:
    """What one ``encode`` could not keep, by message index."""

    def __init__(self) -> None:
        self.found: list[Omission] = []

    def json(self, value: Any, index: int, field: str) -> Any:
        """``value`` if it is JSON that reads back equal, else a JSON stand-in and an Omission."""
        return value if is_plain_json(value) else self._walk(value, index, field)

    def _walk(self, value: Any, index: int, field: str) -> Any:
        """``json``, value by value: each one JSON cannot keep named in an Omission."""
        kind = type(value)
        if value is None or kind in (str, bool, int):
            return value
        if kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                return self._note(index, field, f"float {value!r} is not JSON; written as the "
                                  f"string {str(value)!r}", str(value))
            return value
        if kind is list:
            return [self._walk(v, index, f"{field}[{i}]") for i, v in enumerate(value)]
        if kind is dict:
            out: Item = {}
            for key, v in value.items():
                if type(key) is not str:
                    text = key if isinstance(key, str) else json.dumps(key) if (
                        key is None or isinstance(key, (bool, int, float))) else str(key)
                    self.found.append(Omission(index, f"{field}[{key!r}]", (
                        f"key {key!r} ({type(key).__name__}) written as the string {text!r}")))
                    key = str(text)
                out[key] = self._walk(v, index, f"{field}[{key!r}]")
            return out
        if kind is tuple:
            self.found.append(Omission(index, field, "tuple written as a JSON array "
                                       "(read back as a list)"))
            return [self._walk(v, index, f"{field}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, (bytes, bytearray)):
            return self._note(index, field, "bytes written as base64 text (read back as str)",
                              base64.b64encode(value).decode("ascii"))
        for base in (str, bool, int, float):
            if isinstance(value, base):
                return self._note(index, field, f"{kind.__name__} written as a plain "
                                  f"{base.__name__}", self._walk(base(value), index, field))
        if isinstance(value, Mapping):
            self.found.append(Omission(index, field, f"{kind.__name__} written as a JSON object "
                                       "(read back as a dict)"))
            return self._walk(dict(value), index, field)
        return self._note(index, field, f"{kind.__name__} is not JSON; written as its str()",
                          str(value))

    def _note(self, index: int, field: str, reason: str, stand_in: Any) -> Any:
        self.found.append(Omission(index, field, reason))
        return stand_in


# ---------------------------------------------------------------- content parts


def _part_out(block: Any, assistant: bool) -> Any:
    """One LangChain content block as a Responses-API content part where one fits exactly."""
    if not isinstance(block, dict):
        return block
    kind, keys = block.get("type"), block.keys()
    if kind == "text" and keys == {"type", "text"} and type(block["text"]) is str:
        return {"type": "output_text" if assistant else "input_text", "text": block["text"]}
    if kind == "image" and keys == {"type", "url"} and type(block["url"]) is str \
            and not block["url"].startswith("data:"):
        return {"type": "input_image", "image_url": block["url"]}
    if kind == "image" and keys == {"type", "base64", "mime_type"} \
            and type(block["base64"]) is str and type(block["mime_type"]) is str \
            and _MIME.match(block["mime_type"]):
        return {"type": "input_image",
                "image_url": f"data:{block['mime_type']};base64,{block['base64']}"}
    image_url = block.get("image_url")
    if kind == "image_url" and keys == {"type", "image_url"} and isinstance(image_url, dict) \
            and "url" in image_url and image_url.keys() <= {"url", "detail"} \
            and all(type(v) is str for v in image_url.values()):
        return {"type": "input_image", "image_url": image_url["url"], _TYPE_KEY: "image_url",
                **({"detail": image_url["detail"]} if "detail" in image_url else {})}
    if kind in _CONVERTED:
        return {"type": _WRAP, "block": block}
    return block


def _part_in(part: Any) -> Any:
    """The LangChain content block that :func:`_part_out` wrote as ``part``."""
    if not isinstance(part, dict):
        return part
    kind, keys = part.get("type"), part.keys()
    if kind == _WRAP and keys == {"type", "block"} and isinstance(part["block"], dict):
        return part["block"]
    if kind in ("input_text", "output_text") and keys == {"type", "text"}:
        return {"type": "text", "text": part["text"]}
    url = part.get("image_url")
    if kind == "input_image" and type(url) is str:
        if part.get(_TYPE_KEY) == "image_url" and keys <= {"type", "image_url", _TYPE_KEY,
                                                          "detail"}:
            detail = {"detail": part["detail"]} if "detail" in part else {}
            return {"type": "image_url", "image_url": {"url": url, **detail}}
        if keys == {"type", "image_url"}:
            data = _DATA_URL.match(url)
            if data:
                return {"type": "image", "base64": url[data.end():], "mime_type": data[1]}
            return {"type": "image", "url": url}
    return part


def _content_out(content: Any, assistant: bool) -> Any:
    if isinstance(content, list):
        return [_part_out(block, assistant) for block in content]
    return content


def _content_in(content: Any) -> Any:
    if isinstance(content, list):
        return [_part_in(part) for part in content]
    return content


# ---------------------------------------------------------------- messages <-> items


def _fields(message: BaseMessage, notes: _Omissions, index: int) -> Item:
    """The fields every message class has, where they differ from their defaults."""
    out: Item = {}
    for key in _COMMON:
        value = getattr(message, key)
        if value is not None and value != {}:
            out[key] = notes.json(value, index, key)
    if message.model_extra:
        out[_EXTRA_KEY] = notes.json(dict(message.model_extra), index, _EXTRA_KEY)
    return out


def _arguments(call: ToolCall, notes: _Omissions, index: int, at: int) -> str:
    args = notes.json(call["args"], index, f"tool_calls[{at}].args")
    return json.dumps(args, ensure_ascii=False)


def _known(message: BaseMessage, index: int, notes: _Omissions) -> BaseMessage:
    """``message`` as one of the classes in ``_KNOWN``; what that changes is an Omission."""
    if isinstance(message, BaseMessageChunk):
        notes.found.append(Omission(index, "type", (
            f"{type(message).__name__} written as the message it completes "
            "(langgraph's add_messages stores chunks the same way)")))
        message = message_chunk_to_message(message)
    if type(message) in _KNOWN:
        return message
    for cls in _KNOWN:
        if isinstance(message, cls):
            notes.found.append(Omission(index, "type", (
                f"{type(message).__name__} written as the {cls.__name__} it derives from")))
            return cls.model_validate(message.model_dump())
    raise TypeError(f"message {index}: {type(message).__name__} derives from no LangChain "
                    "message class this module knows")


def _message_items(message: BaseMessage, index: int, notes: _Omissions) -> list[Item]:
    """The items of one message: one, or an assistant message and its tool calls."""
    message = _known(message, index, notes)
    fields = _fields(message, notes, index)
    if isinstance(message, ToolMessage):
        item: Item = {"type": "function_call_output", "call_id": message.tool_call_id,
                      "output": notes.json(_content_out(message.content, False), index,
                                           "content")}
        if message.status != "success":
            item["status"] = message.status
        if message.artifact is not None:
            item["artifact"] = notes.json(message.artifact, index, "artifact")
        return [{**item, **fields}]
    role = _ROLE.get(type(message))
    if role is None:
        role = (message.role if isinstance(message, ChatMessage)
                else "function" if isinstance(message, FunctionMessage) else "remove")
        fields[_TYPE_KEY] = type(message).__name__
    assistant = isinstance(message, AIMessage)
    content = notes.json(_content_out(message.content, assistant), index, "content")
    items = [{"role": role, "content": content, **fields}]
    if isinstance(message, AIMessage):
        if message.usage_metadata is not None:
            items[0]["usage_metadata"] = notes.json(message.usage_metadata, index,
                                                    "usage_metadata")
        for at, call in enumerate(message.tool_calls):
            items.append({"type": "function_call", "call_id": call["id"], "name": call["name"],
                          "arguments": _arguments(call, notes, index, at)})
        for at, bad in enumerate(message.invalid_tool_calls):
            items.append({"type": "function_call", "call_id": bad["id"], "name": bad["name"],
                          "arguments": notes.json(bad["args"], index,
                                                  f"invalid_tool_calls[{at}].args"),
                          "error": notes.json(bad["error"], index,
                                              f"invalid_tool_calls[{at}].error"),
                          "invalid": True})
    return items


def _items(messages: Iterable[BaseMessage]) -> tuple[list[Item], tuple[Omission, ...]]:
    notes = _Omissions()
    items: list[Item] = []
    for index, message in enumerate(messages):
        if not isinstance(message, BaseMessage):
            raise TypeError(f"message {index}: expected a LangChain BaseMessage, "
                            f"not {type(message).__name__}")
        items.extend(_message_items(message, index, notes))
    return items, tuple(notes.found)


_ROLE_KEYS = frozenset({"role", "content", *_COMMON, _TYPE_KEY, _EXTRA_KEY, "usage_metadata"})
_OUTPUT_KEYS = frozenset({"type", "call_id", "output", "status", "artifact", *_COMMON,
                          _EXTRA_KEY})
_CALL_KEYS = frozenset({"type", "call_id", "name", "arguments"})
_INVALID_KEYS = _CALL_KEYS | {"error", "invalid"}


def _check_keys(item: Item, allowed: frozenset[str], index: int) -> None:
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise ValueError(f"item {index}: key(s) {unknown} have no place in a LangChain message")


def _common_in(item: Item) -> dict[str, Any]:
    out = {key: item[key] for key in _COMMON if key in item}
    extra = item.get(_EXTRA_KEY, {})
    if not isinstance(extra, dict):
        raise ValueError(f"'{_EXTRA_KEY}' must be an object, not {type(extra).__name__}")
    return {**extra, **out}


def _tool_call_in(item: Item, index: int, calls: list[ToolCall],
                  invalid: list[InvalidToolCall]) -> None:
    """Read one ``function_call`` item into the tool calls of its AIMessage."""
    if item.get("invalid") is True:
        _check_keys(item, _INVALID_KEYS, index)
        invalid.append(invalid_tool_call(name=item.get("name"), args=item.get("arguments"),
                                         id=item.get("call_id"), error=item.get("error")))
        return
    _check_keys(item, _CALL_KEYS, index)
    arguments = item.get("arguments")
    error: str | None = None
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError as exc:
        args, error = None, f"arguments are not JSON: {exc}"
    if error is None and not isinstance(args, dict):
        error = "arguments are not a JSON object"
    if error is not None or not isinstance(args, dict):  # kept as LangChain keeps a bad call
        invalid.append(invalid_tool_call(
            name=item.get("name"),
            args=arguments if isinstance(arguments, str) else json.dumps(arguments),
            id=item.get("call_id"), error=error))
        return
    calls.append(tool_call(name=item["name"], args=args, id=item.get("call_id")))


class _Assistant:
    """An AIMessage being read: its fields, then the ``function_call`` items after it."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []

    def message(self) -> AIMessage:
        return AIMessage(**self.fields, tool_calls=self.calls,
                         invalid_tool_calls=self.invalid)


def _messages(items: Sequence[Item]) -> list[BaseMessage]:
    """The LangChain messages that :func:`_items` wrote as ``items``.

    A ``function_call`` item belongs to the AIMessage just before it (written
    before its calls); one with none before it starts an AIMessage of its own.
    """
    out: list[BaseMessage | _Assistant] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"item {index}: not a JSON object")
        try:
            kind = item.get("type")
            if kind == "function_call":
                if not (out and isinstance(out[-1], _Assistant)):
                    out.append(_Assistant({"content": ""}))
                last = cast(_Assistant, out[-1])
                _tool_call_in(item, index, last.calls, last.invalid)
            elif kind == "function_call_output":
                _check_keys(item, _OUTPUT_KEYS, index)
                optional = {key: item[key] for key in ("status", "artifact") if key in item}
                out.append(ToolMessage(content=_content_in(item["output"]),
                                       tool_call_id=item["call_id"], **optional,
                                       **_common_in(item)))
            elif kind is not None or "role" not in item:
                raise ValueError(f"item {index}: a {kind!r} item has no LangChain message")
            else:
                _check_keys(item, _ROLE_KEYS, index)
                out.append(_role_message(item, index))
        except (KeyError, TypeError, PydanticValidationError) as exc:
            raise ValueError(f"item {index}: not a LangChain message: {exc}") from exc
    return [m.message() if isinstance(m, _Assistant) else m for m in out]


def _role_message(item: Item, index: int) -> BaseMessage | _Assistant:
    fields = _common_in(item)
    content = _content_in(item.get("content", ""))
    typed = item.get(_TYPE_KEY)
    if typed is None:
        cls = _CLASS.get(item["role"])
        if cls is None:  # a role no LangChain class has: as LangChain reads it
            return ChatMessage(content=content, role=item["role"], **fields)
        if cls is AIMessage:
            if "usage_metadata" in item:
                fields["usage_metadata"] = item["usage_metadata"]
            return _Assistant({"content": content, **fields})
        if "usage_metadata" in item:
            raise ValueError(f"item {index}: only an assistant message has usage_metadata")
        return cast(BaseMessage, cls(content=content, **fields))
    if typed == "ChatMessage":
        return ChatMessage(content=content, role=item["role"], **fields)
    if typed == "FunctionMessage":
        return FunctionMessage(content=content, **fields)
    if typed == "RemoveMessage":
        return RemoveMessage(**fields)
    raise ValueError(f"item {index}: unknown {_TYPE_KEY} {typed!r}")


# ---------------------------------------------------------------- public codec


def encode(messages: Iterable[BaseMessage], *, codec: Codec | None = None) -> Encoded:
    """The summary text of LangChain ``messages``, and what it could not keep.

    Each message becomes one Responses-API-like item (an AIMessage also one
    ``function_call`` item per tool call); see docs/frameworks.md. A value
    that is not JSON (a datetime, a tuple, bytes, NaN, a raw provider object
    in ``artifact`` ...) is written as a JSON stand-in and listed in
    ``omitted``. Raises ``EncodeError`` (a ValueError) for what the codec
    refuses to write, such as JSON nested deeper than its ``max_depth``.
    """
    items, omitted = _items(messages)
    return Encoded((codec or default_codec).dumps(items), omitted)


def dumps(messages: Iterable[BaseMessage], *, codec: Codec | None = None) -> str:
    """The summary text of ``messages``; one warning on the ``handoff_codec`` logger
    when something could not be kept (:func:`encode` says what)."""
    encoded = encode(messages, codec=codec)
    warn_if_omitted(encoded, FRAMEWORK)
    return encoded.text


def loads(text: str, *, codec: Codec | None = None) -> list[BaseMessage]:
    """The LangChain messages a summary text holds: ``loads(dumps(m)) == m``.

    Reads every form the codec reads (``DecodeError`` for text that is not a
    summary). An item that no LangChain message can hold raises ValueError.
    """
    return _messages((codec or default_codec).loads(text))


# ---------------------------------------------------------------- summary messages


def _marker(message: BaseMessage) -> dict[str, Any] | None:
    if not isinstance(message, HumanMessage):
        return None
    marker = message.additional_kwargs.get(SUMMARY_KEY)
    if isinstance(marker, dict) and marker.get("summary") is True:
        return marker
    return None


def is_summary(message: BaseMessage) -> bool:
    """True for a summary message written by :func:`summary_message` (by its marker, never
    by its text)."""
    return _marker(message) is not None


def _is_media(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in _MEDIA


def summary_message(messages: Sequence[BaseMessage], *,
                    codec: Codec | None = None) -> tuple[HumanMessage, Encoded]:
    """ONE user message that hands ``messages`` to the next agent, and its :class:`Encoded`.

    Earlier summary messages among ``messages`` are expanded first (see
    :func:`flatten`), so summaries never nest. Media blocks (images, files,
    audio) are attached to the message as content blocks after the summary
    text, which holds ``{"type": "attached_media", "index": k}`` at their
    place; the message's ``additional_kwargs[SUMMARY_KEY]`` records where each
    belongs, so :func:`flatten` gives back the messages exactly.
    """
    history = flatten(messages, codec=codec)
    attached: list[Any] = []
    places: list[list[int]] = []
    written: list[BaseMessage] = []
    for index, message in enumerate(history):
        if isinstance(message.content, list) and any(map(_is_media, message.content)):
            content = list(message.content)
            for at, block in enumerate(content):
                if _is_media(block):
                    attached.append(block)
                    places.append([index, at])
                    content[at] = {"type": _PLACEHOLDER, "index": len(attached)}
            message = message.model_copy(update={"content": content})
        written.append(message)
    encoded = encode(written, codec=codec)
    marker: dict[str, Any] = {"summary": True}
    if places:
        marker["attachments"] = places
    body: str | list[str | dict[str, Any]] = encoded.text
    if attached:
        body = [{"type": "text", "text": encoded.text}, *attached]
    message = HumanMessage(content=body, additional_kwargs={SUMMARY_KEY: marker},
                           id=str(uuid.uuid4()))
    return message, encoded


def _expand(message: BaseMessage, marker: dict[str, Any], codec: Codec) -> list[BaseMessage]:
    """The messages a summary message holds; ValueError when they cannot be read back."""
    content = message.content
    if isinstance(content, str):
        text, attached = content, []
    elif content and isinstance(content[0], dict) and content[0].get("type") == "text" \
            and isinstance(content[0].get("text"), str):
        text, attached = content[0]["text"], content[1:]
    else:
        raise ValueError("its content holds no summary text")
    if (codec.key is not None or codec.verify_keys) and not codec.verify(text):
        raise ValueError("its signature does not verify")
    inner = loads(text, codec=codec)
    places = marker.get("attachments", [])
    if not isinstance(places, list) or len(places) != len(attached):
        raise ValueError("its attachments do not match its marker")
    for k, place in enumerate(places, 1):
        if not (isinstance(place, list) and len(place) == 2
                and all(type(i) is int for i in place) and 0 <= place[0] < len(inner)):
            raise ValueError(f"attachment {k} has no place")
        owner = inner[place[0]]
        blocks = owner.content
        if not (isinstance(blocks, list) and 0 <= place[1] < len(blocks)
                and blocks[place[1]] == {"type": _PLACEHOLDER, "index": k}):
            raise ValueError(f"attachment {k} has no placeholder at its place")
        blocks = list(blocks)
        blocks[place[1]] = attached[k - 1]
        inner[place[0]] = owner.model_copy(update={"content": blocks})
    return inner


def flatten(messages: Iterable[BaseMessage], *, codec: Codec | None = None) -> list[BaseMessage]:
    """A new list: every summary message written here expanded into the messages it holds.

    Only messages that carry the :data:`SUMMARY_KEY` marker are expanded;
    every other message is kept as it is, whatever its text looks like. A
    marked message that cannot be read back (another codec, a bad signature
    with a signing ``codec``, attachments that do not fit) is kept as it is,
    with one warning on the ``handoff_codec`` logger.
    """
    active = codec or default_codec
    out: list[BaseMessage] = []
    for message in messages:
        marker = _marker(message)
        if marker is None:
            out.append(message)
            continue
        try:
            out.extend(flatten(_expand(message, marker, active), codec=active))
        except ValueError as exc:
            logger.warning("%s summary message %s kept unexpanded: %s", FRAMEWORK, message.id,
                           exc)
            out.append(message)
    return out


# ---------------------------------------------------------------- swarm handoff

_WHITESPACE = re.compile(r"\s+")


def _state_messages(state: Any) -> list[AnyMessage]:
    """``state["messages"]`` of a dict, dataclass or pydantic state, as the swarm reads it."""
    messages = state["messages"] if isinstance(state, Mapping) else state.messages
    return list(messages)


def _calling_message(messages: Sequence[BaseMessage], call_id: str) -> int:
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if isinstance(message, AIMessage) and any(
                call["id"] == call_id for call in message.tool_calls):
            return at
    raise ValueError(f"no AIMessage in the state holds tool call {call_id!r}")


def create_handoff_tool(
    *,
    agent_name: str,
    name: str | None = None,
    description: str | None = None,
    codec: Codec | None = None,
) -> BaseTool:
    """A tool that hands the conversation to ``agent_name`` as ONE summary message.

    The drop-in for ``langgraph_swarm.create_handoff_tool`` (same arguments,
    same default name ``transfer_to_<agent_name>`` and description, and the
    ``metadata`` that ``create_swarm`` reads), for agents made with
    ``langchain.agents.create_agent`` or ``langgraph.prebuilt.create_react_agent``.
    The swarm's state must keep its messages with ``add_messages`` (as
    ``SwarmState`` does): the handoff replaces them with the summary message
    (:func:`summary_message`), the AIMessage that called the handoff and the
    handoff's ToolMessage.

    When other tool calls of the same AIMessage are still unanswered (the
    model called them in parallel with the handoff), the tool hands nothing
    over: it answers with an error ToolMessage asking the model to call it
    again, alone, once their results are in, so that no result is lost.
    If the codec cannot write the history (``EncodeError``), it is handed over
    as it is, with one warning.
    """
    if name is None:
        name = f"transfer_to_{_WHITESPACE.sub('_', agent_name.strip()).lower()}"
    if description is None:
        description = f"Ask agent '{agent_name}' for help"
    tool_name = name

    @tool(tool_name, description=description)
    def handoff_to_agent(
        state: Annotated[Any, InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
    ) -> Command[Any] | ToolMessage:
        messages = _state_messages(state)
        at = _calling_message(messages, tool_call_id)
        answered = {m.tool_call_id for m in messages[at + 1:] if isinstance(m, ToolMessage)}
        pending = [call for call in cast(AIMessage, messages[at]).tool_calls
                   if call["id"] != tool_call_id and call["id"] not in answered]
        if pending:
            waiting = ", ".join(sorted({call["name"] for call in pending}))
            return ToolMessage(
                content=(f"Not transferred to {agent_name} yet: the results of the other tool "
                         f"calls ({waiting}) are not in. Call {tool_name} again, alone, once "
                         "they are."),
                name=tool_name, tool_call_id=tool_call_id, status="error")
        handed: list[BaseMessage] = [RemoveMessage(id=REMOVE_ALL_MESSAGES)]
        if at:
            try:
                summary, encoded = summary_message(messages[:at], codec=codec)
            except ValueError as exc:
                logger.warning("%s handoff to %s: history handed over as it is, since the "
                               "codec cannot write it: %s", FRAMEWORK, agent_name, exc)
                handed.extend(messages[:at])
            else:
                warn_if_omitted(encoded, FRAMEWORK)
                handed.append(summary)
        handed.extend(messages[at:])
        handed.append(ToolMessage(content=f"Successfully transferred to {agent_name}",
                                  name=tool_name, tool_call_id=tool_call_id))
        return Command(goto=agent_name, graph=Command.PARENT,
                       update={"messages": handed, "active_agent": agent_name})

    handoff_to_agent.metadata = {METADATA_KEY_HANDOFF_DESTINATION: agent_name}
    return handoff_to_agent


# ---------------------------------------------------------------- supervisor workers


def summarize_worker(
    agent: Pregel[Any, Any, Any, Any],
    *,
    codec: Codec | None = None,
    state_schema: type[Any] = MessagesState,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """``agent``, as a worker whose run reaches the supervisor as ONE summary message.

    Pass the result to ``create_supervisor`` in place of the agent. It runs
    the agent on the supervisor's state and returns, instead of the agent's
    new messages, one :func:`summary_message` of them: every tool call and
    result (errors included), every text block and the agent's name, with
    media attached. So ``output_mode="last_message"`` (the default) keeps the
    whole run, and ``"full_history"`` keeps it in one message. Names are
    written inside the summary, escaped by the codec, so
    ``include_agent_name="inline"`` is not needed. ``state_schema`` is the
    state the worker is given (the supervisor's ``MessagesState`` by default);
    only the messages come back.
    """
    name = agent.name
    if not name or name == "LangGraph":
        raise ValueError("summarize_worker needs an agent with a name (create_agent(..., "
                         "name=...) or graph.compile(name=...))")

    def reply(before: Sequence[BaseMessage], after: Sequence[BaseMessage]) -> dict[str, Any]:
        seen = {m.id for m in before}
        new = [m for m in after if m.id is None or m.id not in seen]
        if not new:
            return {"messages": []}
        summary, encoded = summary_message(new, codec=codec)
        warn_if_omitted(encoded, FRAMEWORK)
        return {"messages": [summary]}

    def run(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return reply(state["messages"], agent.invoke(state, config)["messages"])

    async def arun(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return reply(state["messages"], (await agent.ainvoke(state, config))["messages"])

    builder: StateGraph[Any, Any, Any, Any] = StateGraph(state_schema)
    node: RunnableLambda[Any, dict[str, Any]] = RunnableLambda(run, arun, name=name)
    builder.add_node(name, node)
    builder.add_edge(START, name)
    return builder.compile(name=name)

