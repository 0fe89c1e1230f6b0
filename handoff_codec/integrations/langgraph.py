"""LangGraph handoffs: the next agent's model gets ONE summary.

``pip install 'handoff-codec[langgraph]'``.

LangChain messages to one summary text and back, exactly::

    text = dumps(messages)            # HumanMessage, AIMessage, ToolMessage, ... -> str
    assert loads(text) == messages    # the same classes, fields and content blocks
    encoded = encode(messages)        # the text, and what it could not keep (.omitted)

The drop-in pieces change only what a model is sent, never the graph's state:

* :class:`HandoffMiddleware` (``create_agent(..., middleware=[...])``) and
  :func:`handoff_prompt` (``prompt=`` of ``create_react_agent`` and
  ``create_supervisor``): before each model call, the messages other agents
  wrote before the last handoff reach the model as ONE user message, a
  :class:`HandoffSummary` of what the model would have been sent for them
  (:func:`model_visible`: no ids, metadata, usage or artifacts), every message
  exactly, hostile text inside its record. The state keeps every message, so
  a chat UI reading ``get_state(...).values["messages"]`` loses nothing.
* :func:`create_handoff_tool`, the drop-in for ``langgraph_swarm.create_handoff_tool``:
  a handoff called in parallel with other tools waits for their results
  (it answers "call me again alone") instead of dropping them
  (langgraph-swarm #26, #58, #69, #83, #94, #105).

A supervisor (``langgraph_supervisor.create_supervisor``) keeps its own
handoff tools: give the supervisor :func:`handoff_prompt` and each worker the
middleware (or :func:`handoff_prompt`).

Nothing is stored outside the graph's state, and nothing in the state marks a
summary: a summary exists only in a model's request, made from the real
messages, so no message a client sends is ever expanded.

This module imports LangChain, LangGraph and langgraph-swarm when it is
imported, and uses only their public API. ``import handoff_codec`` never
imports them.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, cast

from ._extras import missing

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest
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
    from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
    from langgraph.config import get_config
    from langgraph.prebuilt import InjectedState
    from langgraph.types import Command
    from langgraph_swarm.handoff import METADATA_KEY_HANDOFF_DESTINATION
    from pydantic import PrivateAttr
    from pydantic import ValidationError as PydanticValidationError
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise missing("langgraph", "LangChain, LangGraph and langgraph-swarm", "langgraph", exc,
                  tested="langgraph 1.2, langchain 1.5, langchain-core 1.8, langgraph-swarm 0.1, "
                  "langgraph-supervisor 0.0.31") from exc

from ..format import Codec, default_codec
from ._common_items import Notes, json_text
from .report import Encoded, Omission, ReadBack, _dumped, _loaded, is_plain_json, warn_if_omitted

__all__ = [
    "MODEL_VISIBLE_KWARGS",
    "HandoffMiddleware",
    "HandoffSummary",
    "create_handoff_tool",
    "dumps",
    "encode",
    "flatten",
    "handoff_prompt",
    "is_summary",
    "loads",
    "model_messages",
    "model_visible",
    "read",
]

logger = logging.getLogger("handoff_codec")

Item = dict[str, Any]

FRAMEWORK = "LangGraph"

#: The ``additional_kwargs`` keys a summary keeps (:func:`model_visible`): those
#: LangChain's chat models send back to a provider (a refusal, reasoning, a
#: legacy function call, a system message's "developer" role). Any other key
#: (a client's dict message puts its extra keys there) stays in the state only.
MODEL_VISIBLE_KWARGS = frozenset({"refusal", "reasoning", "reasoning_content", "function_call",
                                  "__openai_role__"})

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
_PLACEHOLDER = "attached_media"  # where a summary's attached media block belongs
# (a message's own block of that type is written wrapped: it never looks like one)
_CONVERTED = frozenset({"input_text", "output_text", "input_image", _WRAP, _PLACEHOLDER})
_MIME = re.compile(r"[^;,]+\Z")
_DATA_URL = re.compile(r"data:([^;,]+);base64,", re.DOTALL)

# Content blocks the handoff attaches to the summary message instead of writing
# them into its text: providers take media on user turns only, and base64 in
# the text would reach the model as text.
_MEDIA = frozenset({"image", "image_url", "input_image", "file", "input_file", "audio",
                    "input_audio", "video", "media", "document"})


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


def _fields(message: BaseMessage, notes: _Omissions, index: int, visible: bool) -> Item:
    """The fields every message class has, where they differ from their defaults.

    ``visible``: only what a chat model is sent (``name``, but a ToolMessage's,
    which providers are not sent: its call has the name; and the
    ``additional_kwargs`` keys in :data:`MODEL_VISIBLE_KWARGS`).
    """
    out: Item = {}
    if visible:
        if message.name is not None and not isinstance(message, ToolMessage):
            out["name"] = notes.json(message.name, index, "name")
        kept = {key: value for key, value in message.additional_kwargs.items()
                if key in MODEL_VISIBLE_KWARGS}
        if kept:
            out["additional_kwargs"] = notes.json(kept, index, "additional_kwargs")
        return out
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


def _message_items(message: BaseMessage, index: int, notes: _Omissions,
                   visible: bool = False) -> list[Item]:
    """The items of one message: one, or an assistant message and its tool calls.

    ``visible``: only what a chat model is sent of it (see :func:`model_visible`).
    """
    message = _known(message, index, _Omissions() if visible else notes)
    fields = _fields(message, notes, index, visible)
    if isinstance(message, ToolMessage):
        item: Item = {"type": "function_call_output", "call_id": message.tool_call_id,
                      "output": notes.json(_content_out(message.content, False), index,
                                           "content")}
        if message.status != "success":
            item["status"] = message.status
        if message.artifact is not None and not visible:
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
        if message.usage_metadata is not None and not visible:
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


def _items(messages: Iterable[BaseMessage], *, visible: bool = False
           ) -> tuple[list[Item], tuple[Omission, ...]]:
    """The items of ``messages`` and what they leave out; ``visible``: only what a model
    is sent (a RemoveMessage, an instruction to ``add_messages``, is left out)."""
    notes = _Omissions()
    items: list[Item] = []
    for index, message in enumerate(messages):
        if not isinstance(message, BaseMessage):
            raise TypeError(f"message {index}: expected a LangChain BaseMessage, "
                            f"not {type(message).__name__}")
        if not (visible and isinstance(message, RemoveMessage)):
            items.extend(_message_items(message, index, notes, visible=visible))
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
    return _dumped(encode(messages, codec=codec), FRAMEWORK)


def loads(text: str, *, codec: Codec | None = None) -> list[BaseMessage]:
    """The LangChain messages a summary text holds: ``loads(dumps(m)) == m``.

    Reads every form the codec reads (``DecodeError`` for text that is not a
    summary), whatever framework module wrote it (:func:`read`; one warning
    when something was left out). An item that no LangChain message can hold
    raises ValueError.
    """
    return _loaded(read(text, codec=codec), FRAMEWORK)


def read(text: str, *, codec: Codec | None = None) -> ReadBack[BaseMessage]:
    """The LangChain messages of a summary text, and what of it they cannot hold.

    What :func:`dumps` wrote reads back exactly. Another module's items are
    read in their common shape (docs/frameworks.md, "Any framework to any other"):
    the keys, content parts and items no LangChain message holds (ADK's
    ``event``, Agent Framework's ``same_message``, a Responses item's ``id``...)
    are left out and reported, and a tool result that is a JSON value other
    than text or content blocks becomes its JSON text (reported), never a
    Python repr.
    """
    notes = Notes(FRAMEWORK)
    items = [_common_item(index, item, notes)
             for index, item in enumerate((codec or default_codec).loads(text))]
    return ReadBack(_messages([item for item in items if item is not None]), notes.omitted)


_PART_KEYS = {"input_text": frozenset({"type", "text"}),
              "output_text": frozenset({"type", "text"}),
              "input_image": frozenset({"type", "image_url", _TYPE_KEY, "detail"}),
              _WRAP: frozenset({"type", "block"})}


def _common_parts(index: int, content: Any, notes: Notes, where: str) -> Any:
    if not isinstance(content, list):
        return content
    parts: list[Any] = []
    for at, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        allowed = _PART_KEYS.get(kind) if isinstance(kind, str) else None
        if allowed is not None and isinstance(part, dict):
            if kind == "input_image" and part.get(_TYPE_KEY) != "image_url":
                allowed = frozenset({"type", "image_url"})
            part = notes.foreign(index, part, allowed, f"{where}[{at}].")
        parts.append(part)
    return parts


def _common_item(index: int, item: Any, notes: Notes) -> Item | None:
    """``item`` with what a LangChain message has no place for left out (reported)."""
    if not isinstance(item, dict):
        return cast(Item, item)  # refused by _messages, naming the item
    kind = item.get("type")
    if kind == "message" and "role" in item:
        item = {key: value for key, value in item.items() if key != "type"}
        kind = None
    if kind is None and "role" in item:
        message = notes.foreign(index, item, _ROLE_KEYS)
        message["content"] = _common_parts(index, item.get("content", ""), notes, "content")
        return message
    if kind == "function_call":
        return notes.foreign(index, item, _INVALID_KEYS if item.get("invalid") is True
                             else _CALL_KEYS)
    if kind == "function_call_output":
        result = notes.foreign(index, item, _OUTPUT_KEYS)
        if result.get("status", "success") not in ("success", "error"):
            notes.drop(index, "status", f"{result.pop('status')!r} is not a ToolMessage "
                       "status; left out")
        output = result.get("output")
        if isinstance(output, list) and all(isinstance(p, dict) for p in output):
            result["output"] = _common_parts(index, output, notes, "output")
        elif not isinstance(output, str | list):
            result["output"] = json_text(output)
            notes.drop(index, "output", "a JSON result; a ToolMessage holds its JSON text")
        return result
    notes.drop(index, f"type {kind!r}", "no LangChain message holds such an item; left out")
    return None


# ---------------------------------------------------------------- what a model is sent


def model_visible(messages: Iterable[BaseMessage]) -> list[BaseMessage]:
    """``messages`` as a chat model is sent them: what a summary of them holds.

    Content (every block, whitespace-only text and reasoning included), the
    role, ``name``, tool calls with their ids and arguments, invalid tool
    calls, a ToolMessage's ``tool_call_id`` and error ``status``, and the
    ``additional_kwargs`` keys LangChain's chat models send back to a
    provider (:data:`MODEL_VISIBLE_KWARGS`). Not the ``id``,
    ``response_metadata``, ``usage_metadata``, a ToolMessage's ``artifact``,
    other ``additional_kwargs`` or extra fields: LangChain keeps those for
    itself, and they stay in the graph's state. A message chunk is the
    message it completes; a RemoveMessage (an instruction to
    ``add_messages``, never sent to a model) is left out. ``loads`` of a
    summary's text gives this list.
    """
    return _messages(_items(messages, visible=True)[0])


class _Rendering:
    """One message's summary items, its media blocks, and what JSON could not keep."""

    __slots__ = ("items", "media", "omitted", "ref")

    def __init__(self, message: BaseMessage) -> None:
        self.items, self.omitted = _items([message], visible=True)
        # (block index, the LangChain block): the message's first item holds its content
        content = message.content
        self.media = ([(place, block) for place, block in enumerate(content) if _is_media(block)]
                      if isinstance(content, list) else [])
        self.ref = weakref.ref(message)


class _Renderings:
    """Each message's :class:`_Rendering`, made once while the message lives.

    Keyed by the message object itself (its ``id()``, checked against a weak
    reference), never by a value a client sends such as the message's ``id``:
    a conversation is only ever given the rendering of its own objects.
    LangGraph hands a node the same message objects step after step, so a
    model call renders only the messages that are new since the last one.
    """

    def __init__(self) -> None:
        self._by_object: dict[int, _Rendering] = {}
        self._lock = threading.Lock()

    def get(self, message: BaseMessage) -> _Rendering:
        key = id(message)
        found = self._by_object.get(key)
        if found is not None and found.ref() is message:
            return found
        rendering = _Rendering(message)
        with self._lock:
            self._by_object[key] = rendering
        weakref.finalize(message, self._forget, key, rendering)
        return rendering

    def _forget(self, key: int, rendering: _Rendering) -> None:
        with self._lock:
            if self._by_object.get(key) is rendering:
                del self._by_object[key]


_RENDERINGS = _Renderings()


class HandoffSummary(HumanMessage):
    """The ONE user message that hands other agents' messages to an agent's model.

    Made only by :func:`model_messages` (and the middleware and prompt that
    call it), for the model's request; it is never put into the graph's
    state. Its text is a summary (``loads`` reads it back as
    :func:`model_visible` messages); media blocks follow the text, each in
    place of ``{"type": "attached_media", "index": k}`` in its record.
    Nothing a client sends can be one: a client's dict, JSON or serialized
    LangChain message becomes a plain LangChain message class, whatever its
    keys or text. :func:`flatten` gives back the messages it stands for.
    """

    _handed: list[BaseMessage] = PrivateAttr(default_factory=list)
    _encoded: Encoded | None = PrivateAttr(default=None)

    @property
    def messages(self) -> list[BaseMessage]:
        """The messages of the graph's state this summary stands for, exactly."""
        return list(self._handed)

    @property
    def encoded(self) -> Encoded | None:
        """The summary text and what it could not keep (None on a copy that lost it)."""
        return self._encoded


def is_summary(message: BaseMessage) -> bool:
    """True for a :class:`HandoffSummary` this module made; never for a message whose
    keys or text merely look like one."""
    return isinstance(message, HandoffSummary)


def flatten(messages: Iterable[BaseMessage]) -> list[BaseMessage]:
    """A new list: each :class:`HandoffSummary` replaced by the messages it stands for.

    For reading what a model was sent (a request) as the conversation it
    stands for. Every other message is kept as it is, whatever its keys or
    text: only an object this module made is expanded. A summary that lost
    its messages (a copy made through JSON or a serializer) is kept.
    """
    out: list[BaseMessage] = []
    for message in messages:
        handed = message.messages if isinstance(message, HandoffSummary) else []
        out.extend(handed or [message])
    return out


def _is_media(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in _MEDIA


def _with_placeholders(rendering: _Rendering, first: int) -> list[Item]:
    """The rendering's items, each media block replaced by its numbered placeholder."""
    items = list(rendering.items)
    item = dict(items[0])
    key = "content" if "content" in item else "output"
    parts = list(item[key])
    for k, (place, _block) in enumerate(rendering.media, first):
        parts[place] = {"type": _PLACEHOLDER, "index": k}
    item[key] = parts
    items[0] = item
    return items


def _summary(handed: Sequence[BaseMessage], codec: Codec) -> HandoffSummary:
    """ONE summary message of ``handed``; EncodeError when the codec refuses to write it."""
    items: list[Item] = []
    attached: list[Any] = []
    omitted: list[Omission] = []
    for index, message in enumerate(handed):
        rendering = _RENDERINGS.get(message)
        if rendering.media:
            items.extend(_with_placeholders(rendering, len(attached) + 1))
            attached.extend(block for _place, block in rendering.media)
        else:
            items.extend(rendering.items)
        omitted.extend(Omission(index, o.field, o.reason) for o in rendering.omitted)
    text = codec.dumps(items)
    body: str | list[str | dict[str, Any]] = text
    if attached:
        body = [{"type": "text", "text": text}, *attached]
    summary = HandoffSummary(content=body)
    summary._handed = list(handed)
    summary._encoded = Encoded(text, tuple(omitted))
    return summary


def _boundary(messages: Sequence[BaseMessage], agent_name: str) -> int:
    """Where what ``agent_name``'s model is sent as it is begins: the last message another
    agent wrote (its handoff call), or 0 when no other agent has spoken."""
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if isinstance(message, AIMessage) and message.name != agent_name:
            return at
    return 0


def model_messages(messages: Sequence[BaseMessage], agent_name: str, *,
                   codec: Codec | None = None) -> list[BaseMessage]:
    """What ``agent_name``'s model is sent for the conversation ``messages``.

    Everything before the last message another agent wrote (in a handoff,
    its call of the handoff tool) becomes ONE :class:`HandoffSummary`, a
    user message; that message and everything after it (the handoff's
    ToolMessage, this agent's own turns, the user's new ones) follow as
    they are. When no other agent has spoken, ``messages`` as they are.
    The summary holds what the model would have been sent for those
    messages (:func:`model_visible`), each message exactly, hostile text
    inside its record; it never reads anything from the messages' text or
    keys, so no message is ever expanded. ``messages`` is not changed.

    Each message is rendered once while it lives (cached by the object,
    never by a value a client sends), so a model call costs what is new.
    When the codec refuses to write the summary (over its limits), the
    messages are sent as they are, with one warning.
    """
    at = _boundary(messages, agent_name)
    if at == 0:
        return list(messages)
    try:
        summary = _summary(messages[:at], codec or default_codec)
    except ValueError as exc:  # EncodeError: over the codec's limits
        logger.warning("%s: %s's history sent as it is, since the codec cannot write it: %s",
                       FRAMEWORK, agent_name, exc)
        return list(messages)
    if summary.encoded is not None:
        warn_if_omitted(summary.encoded, FRAMEWORK)
    return [summary, *messages[at:]]


# ---------------------------------------------------------------- the pieces an app adds


def _run_agent_name() -> str:
    """The name ``create_agent(..., name=...)`` gave the running agent."""
    try:
        name = get_config().get("metadata", {}).get("lc_agent_name")
    except RuntimeError:  # outside a graph run
        name = None
    if not isinstance(name, str) or not name:
        raise ValueError("HandoffMiddleware: the running agent has no name; pass "
                         "HandoffMiddleware(agent_name=...) or create_agent(..., name=...)")
    return name


class HandoffMiddleware(AgentMiddleware[Any, Any, Any]):
    """``create_agent`` middleware: other agents' messages reach the model as ONE summary.

    Add it to every agent of a swarm or supervisor made with
    ``langchain.agents.create_agent``::

        create_agent(model, tools, name="billing", middleware=[HandoffMiddleware()])

    Before each model call it rewrites the request only (:func:`model_messages`
    for the agent's name, the one given to ``create_agent`` unless
    ``agent_name`` is given): the graph's state keeps every message exactly.
    It holds no conversation's state, so one instance can serve any number
    of agents and conversations; it works under ``invoke`` and ``ainvoke``.
    """

    def __init__(self, agent_name: str | None = None, *, codec: Codec | None = None) -> None:
        super().__init__()
        self.agent_name = agent_name
        self.codec = codec

    def _rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        name = self.agent_name or _run_agent_name()
        rewritten = model_messages(request.messages, name, codec=self.codec)
        return request.override(messages=cast("list[AnyMessage]", rewritten))

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any],
    ) -> Any:
        """The model call, sent :func:`model_messages` instead of the state's messages."""
        return handler(self._rewrite(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]],
    ) -> Any:
        """:meth:`wrap_model_call` under ``ainvoke``."""
        return await handler(self._rewrite(request))


def handoff_prompt(agent_name: str, prompt: str | SystemMessage | None = None, *,
                   codec: Codec | None = None) -> Callable[[Any], list[BaseMessage]]:
    """A ``prompt=`` for ``create_react_agent`` and ``create_supervisor``: the prompt, then
    :func:`model_messages` of the state's messages for ``agent_name``.

    ``create_supervisor(agents, model=model, prompt=handoff_prompt("supervisor",
    "You supervise."))`` (the supervisor's name is ``supervisor_name``,
    "supervisor" by default); ``create_react_agent(model, tools,
    name="research", prompt=handoff_prompt("research", "You research."))``.
    Like :class:`HandoffMiddleware`, it changes only what the model is sent.
    """
    system = SystemMessage(prompt) if isinstance(prompt, str) else prompt

    def handoff_prompt_messages(state: Any) -> list[BaseMessage]:
        rewritten = model_messages(_state_messages(state), agent_name, codec=codec)
        return [system, *rewritten] if system is not None else rewritten

    return handoff_prompt_messages


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
) -> BaseTool:
    """The drop-in for ``langgraph_swarm.create_handoff_tool``: no result is lost.

    Same arguments, default name ``transfer_to_<agent_name>``, description
    and ``metadata`` (which ``create_swarm`` reads) as the swarm's, and the
    same update: the agent's messages, then the handoff's ToolMessage, into
    the swarm's state, every message kept. The difference: when other tool
    calls of the same AIMessage are still unanswered (the model called them
    in parallel with the handoff, and the swarm's tool would drop their
    results: langgraph-swarm #26, #58, #69, #83, #94, #105), it hands
    nothing over and answers with an error ToolMessage asking the model to
    call it again, alone, once their results are in. It runs under
    ``invoke`` and ``ainvoke`` (a coroutine of its own). Give each agent
    :class:`HandoffMiddleware` so the next agent's model gets the history
    as ONE summary.
    """
    if name is None:
        name = f"transfer_to_{_WHITESPACE.sub('_', agent_name.strip()).lower()}"
    if description is None:
        description = f"Ask agent '{agent_name}' for help"
    tool_name = name

    def handoff(state: Any, tool_call_id: str) -> Command[Any] | ToolMessage:
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
        handed = ToolMessage(content=f"Successfully transferred to {agent_name}",
                             name=tool_name, tool_call_id=tool_call_id)
        return Command(goto=agent_name, graph=Command.PARENT,
                       update={"messages": [*messages, handed], "active_agent": agent_name})

    def handoff_to_agent(
        state: Annotated[Any, InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
    ) -> Command[Any] | ToolMessage:
        return handoff(state, tool_call_id)

    async def ahandoff_to_agent(
        state: Annotated[Any, InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
    ) -> Command[Any] | ToolMessage:
        return handoff(state, tool_call_id)

    made = StructuredTool.from_function(func=handoff_to_agent, coroutine=ahandoff_to_agent,
                                        name=tool_name, description=description)
    made.metadata = {METADATA_KEY_HANDOFF_DESTINATION: agent_name}
    return made
