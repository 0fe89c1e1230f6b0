"""Responses-API input items to Chat Completions messages.

``to_chat_messages`` gives the same messages as the Agents SDK's
``Converter.items_to_messages`` (openai-agents 0.24.0, called without a model)
for every item it accepts; see docs/replay.md for the few deliberate
differences. Each item is first turned into a :class:`Piece` on its own, then
the pieces are assembled: consecutive tool calls share one assistant message.

This module imports neither openai nor pydantic at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import ReplayError

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

__all__ = ["Piece", "Unconvertible", "assemble", "content_of", "piece_of", "to_chat_messages"]

ROLES = ("user", "assistant", "system", "developer")  # a tuple: roles may be unhashable
EASY_KEYS = frozenset({"role", "content", "type", "phase"})
PHASES = (None, "commentary", "final_answer")
# What the SDK puts in a tool message whose output has no text part.
OMITTED_TOOL_OUTPUT = "[tool output omitted]"

Message = dict[str, Any]
PieceKind = Literal["message", "output_message", "call", "tool", "drop"]


class Unconvertible(Exception):
    """One item cannot be converted; ``code`` names the reason for reports."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg


@dataclass(frozen=True)
class Piece:
    """What one item contributes to the messages.

    ``message``: a whole message; ``output_message``: assistant text that may
    join pending tool calls; ``call``: one tool call; ``tool``: a tool message;
    ``drop``: nothing (``note`` says why). ``notes`` are lossless-ness remarks.
    """

    kind: PieceKind
    value: Message | None = None
    refusal: str | None = None
    notes: tuple[tuple[str, str], ...] = ()


def to_chat_messages(
    items: str | Iterable[Mapping[str, Any]],
) -> list[ChatCompletionMessageParam]:
    """Convert Responses-API input items to Chat Completions messages.

    Raises :class:`~handoff_codec.replay.ReplayError` naming the first item that cannot
    be converted. ``reasoning`` items are dropped (``validate`` reports them).
    """
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    pieces: list[Piece] = []
    for index, item in enumerate(items):
        try:
            pieces.append(piece_of(item))
        except Unconvertible as exc:
            raise ReplayError(exc.msg, index=index) from None
    messages, _ = assemble(pieces)
    return messages  # type: ignore[return-value]


def assemble(pieces: Iterable[Piece]) -> tuple[list[Message], list[int]]:
    """The messages, and for each the index of the first piece it came from."""
    messages: list[Message] = []
    origins: list[int] = []
    pending: Message | None = None  # an assistant message that may gain tool calls
    pending_origin = 0

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            if not pending["tool_calls"]:
                del pending["tool_calls"]
            messages.append(pending)
            origins.append(pending_origin)
            pending = None

    for index, piece in enumerate(pieces):
        if piece.kind in ("message", "tool"):
            flush()
            messages.append(dict(piece.value or {}))
            origins.append(index)
        elif piece.kind == "output_message":
            text = (piece.value or {}).get("content")
            if (
                pending is not None
                and pending["tool_calls"]
                and "refusal" not in pending
                and pending.get("content") is None
            ):
                if text is not None:
                    pending["content"] = text
                if piece.refusal is not None:
                    pending["refusal"] = piece.refusal
            else:
                flush()
                pending = {"role": "assistant"}
                if piece.refusal is not None:
                    pending["refusal"] = piece.refusal
                if text is not None:
                    pending["content"] = text
                pending["tool_calls"] = []
                pending_origin = index
        elif piece.kind == "call":
            if pending is None:
                pending = {"role": "assistant", "content": None, "tool_calls": []}
                pending_origin = index
            pending["tool_calls"].append(piece.value)
    flush()
    return messages, origins


# ---------------------------------------------------------------- one item
def is_easy_message(item: Mapping[str, Any]) -> bool:
    """The SDK's "easy input message": role and content, nothing but type/phase."""
    keys = set(item)
    return (
        {"role", "content"} <= keys <= EASY_KEYS
        and item.get("type", "message") == "message"
        and item.get("phase") in PHASES
        and item.get("role") in ROLES
    )


def piece_of(item: Any) -> Piece:
    """What ``item`` contributes, or :class:`Unconvertible` saying why not.

    One decision tree: each branch either converts the item or raises its own
    reason, so ``validate`` reports exactly why the converter refused it.
    """
    if not isinstance(item, Mapping):
        raise Unconvertible("unsupported-item", f"expected an object, got {type(item).__name__}")
    kind = item.get("type")
    if kind == "message" or (kind is None and "role" in item):
        return _message(item, kind)
    if kind == "function_call":
        return _function_call(item)
    if kind == "function_call_output":
        return _function_call_output(item)
    if kind == "reasoning":
        note = ("reasoning-dropped", "reasoning item dropped: Chat Completions has no place for it")
        return Piece("drop", notes=(note,))
    if kind in ("item_reference", "compaction", "file_search_call"):
        raise Unconvertible("unsupported-item",
                            f"{kind} items cannot be replayed through Chat Completions")
    raise Unconvertible("unsupported-item", f"unknown item type {kind!r}")


def _message(item: Mapping[str, Any], kind: Any) -> Piece:
    """A message item (``type`` "message" or absent), as the SDK's converter reads it."""
    role: str = item.get("role")  # type: ignore[assignment]  # a known role where it is used
    if is_easy_message(item) or (kind == "message" and role in ("user", "system", "developer")):
        if "content" not in item:
            raise Unconvertible("missing-field", f"{role} message without 'content'")
        if role == "assistant" and _has_output_parts(item["content"]):
            # The SDK reads output_text and refusal parts only in an output message (type
            # "message" and an id); without them those parts are unknown input parts.
            missing = " and ".join(([] if kind == "message" else ["'type': 'message'"])
                                   + ["an 'id'"])
            raise Unconvertible("missing-field",
                                "an assistant message with output_text or refusal parts is an "
                                f"output message: it needs {missing}")
        content = content_of(item["content"], role, role)
        return Piece("message", {"role": role, "content": content}, notes=_part_notes(item, role))
    if kind == "message" and role == "assistant" and "id" in item and "content" in item:
        return _output_message(item)
    if role == "tool" or (role == "assistant" and "tool_calls" in item):
        what = "tool message" if role == "tool" else "tool_calls key"
        raise Unconvertible("unsupported-item",
                            f"a Chat Completions {what} is not an item: write a tool call as a "
                            "function_call item and its answer as a function_call_output item")
    if role not in ROLES:
        raise Unconvertible("unsupported-item", f"unknown role {role!r}")
    if "content" not in item:
        raise Unconvertible("missing-field", f"{role} message without 'content'")
    if item.get("phase") not in PHASES:
        raise Unconvertible("unsupported-item", f"unknown phase {item.get('phase')!r}")
    if kind == "message":
        raise Unconvertible("unsupported-item",
                            "an assistant 'type: message' item with keys other than role, "
                            "content, type and phase needs an 'id'")
    if "name" in item and is_easy_message({k: v for k, v in item.items() if k != "name"}):
        raise Unconvertible("name-key",
                            "a 'name' key on this message: the target takes no such name; "
                            "handoff-codec replay drops it (--names inline writes it into the "
                            "text), as replayable() does in Python")
    if "type" in item:
        raise Unconvertible("unsupported-item", "'type' must be 'message' or absent, not None")
    extra = sorted(set(item) - EASY_KEYS)
    raise Unconvertible("unsupported-item",
                        f"keys {extra} are not accepted on a message without 'type': 'message'")


def _has_output_parts(content: Any) -> bool:
    return isinstance(content, (list, tuple)) and any(
        isinstance(part, Mapping) and part.get("type") in ("output_text", "refusal")
        for part in content)


def _output_message(item: Mapping[str, Any]) -> Piece:
    parts = item["content"]
    if parts == "":
        parts = []  # the SDK iterates over the string: no parts, no text
    if not isinstance(parts, (list, tuple)):
        raise Unconvertible("bad-content", "assistant output message content must be a list")
    texts: list[str] = []
    refusal: str | None = None
    for part in parts:
        part_type = part.get("type") if isinstance(part, Mapping) else None
        if part_type == "output_text":
            text = part.get("text")
            if not isinstance(text, str):
                raise Unconvertible("bad-content", "output_text part without a string 'text'")
            texts.append(text)
        elif part_type == "refusal":
            refused = part.get("refusal")
            if not isinstance(refused, str):
                raise Unconvertible("bad-content", "refusal part without a string 'refusal'")
            refusal = refused
        else:
            raise Unconvertible("bad-content",
                                f"unknown part in an assistant message: {part!r:.80}")
    value: Message = {"content": "\n".join(texts)} if texts else {}
    return Piece("output_message", value, refusal=refusal)


def _function_call(item: Mapping[str, Any]) -> Piece:
    for key in ("call_id", "name", "arguments"):
        if key not in item:
            raise Unconvertible("missing-field", f"function_call without {key!r}")
    call_id, name, arguments = item["call_id"], item["name"], item["arguments"]
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise Unconvertible("bad-content", "function_call 'call_id' and 'name' must be strings")
    if arguments and not isinstance(arguments, str):
        raise Unconvertible("bad-content", "function_call 'arguments' must be a JSON string")
    call = {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments or "{}"}}
    return Piece("call", call)


def _function_call_output(item: Mapping[str, Any]) -> Piece:
    call_id = item.get("call_id")
    if call_id is None:
        raise Unconvertible("missing-field", "function_call_output without 'call_id'")
    if not isinstance(call_id, str):
        raise Unconvertible("bad-content", "function_call_output 'call_id' must be a string")
    if "output" not in item:
        raise Unconvertible("missing-field", "function_call_output without 'output'")
    content = content_of(item["output"], "tool", "function_call_output")
    notes: tuple[tuple[str, str], ...] = ()
    if isinstance(content, list):
        texts = [part for part in content if part.get("type") == "text"]
        if len(texts) != len(content):
            notes = (("parts-dropped", "non-text parts of a tool output are dropped"),)
        content = texts or OMITTED_TOOL_OUTPUT
        if not texts:
            notes = (("tool-output-omitted",
                      f"tool output has no text part; replaced by {OMITTED_TOOL_OUTPUT!r}"),)
    return Piece("tool", {"role": "tool", "tool_call_id": call_id, "content": content},
                 notes=notes)


def _part_notes(item: Mapping[str, Any], role: str) -> tuple[tuple[str, str], ...]:
    content = item["content"]
    if role != "user" and isinstance(content, (list, tuple)):
        kept = sum(1 for part in content
                   if isinstance(part, Mapping) and part.get("type") in ("input_text", "text"))
        if kept != len(content):
            return (("parts-dropped", f"non-text parts of a {role} message are dropped"),)
    return ()


# ---------------------------------------------------------------- content
def content_of(content: Any, role: str, what: str) -> str | list[dict[str, Any]]:
    """Content as the SDK writes it: a string, or parts (text only unless user)."""
    if isinstance(content, str):
        return content
    if content is None:
        raise Unconvertible("null-content", f"{what} content is null; use \"\" for no text")
    if not isinstance(content, (list, tuple)):
        raise Unconvertible("bad-content",
                            f"{what} content must be a string or a list of parts, "
                            f"not {type(content).__name__}")
    parts = [_part(part, what) for part in content]
    if role in ("user", "tool"):
        return parts
    return [part for part in parts if part["type"] == "text"]


def _part(part: Any, what: str) -> dict[str, Any]:
    if not isinstance(part, Mapping):
        raise Unconvertible("bad-content", f"{what} content part must be an object: {part!r:.80}")
    kind = part.get("type")
    if kind in ("input_text", "text"):
        text = part.get("text")
        if not isinstance(text, str):
            raise Unconvertible("bad-content", f"{kind} part without a string 'text'")
        return _with_breakpoint(part, {"type": "text", "text": text})
    if kind == "image_url":
        payload = part.get("image_url")
        url = payload.get("url") if isinstance(payload, Mapping) else None
        if not isinstance(url, str) or not url:
            raise Unconvertible("bad-content", "image_url part without a URL")
        detail = payload.get("detail") if isinstance(payload, Mapping) else None
        return _with_breakpoint(part, _image(url, "auto" if detail is None else detail))
    if kind == "input_image":
        url = part.get("image_url")
        if not url:
            raise Unconvertible("bad-content", "input_image part without an image_url "
                                "(file ids cannot be sent to Chat Completions)")
        return _with_breakpoint(part, _image(url, part.get("detail", "auto")))
    if kind == "input_audio":
        audio = part.get("input_audio")
        if not isinstance(audio, Mapping) or not audio.get("data") or not audio.get("format"):
            raise Unconvertible("bad-content", "input_audio part needs data and format")
        return _with_breakpoint(part, {"type": "input_audio", "input_audio": {
            "data": audio["data"], "format": audio["format"]}})
    if kind == "input_file":
        if part.get("file_data"):
            file: dict[str, Any] = {"file_data": part["file_data"]}
        elif part.get("file_id"):
            file = {"file_id": part["file_id"]}
        else:
            raise Unconvertible("bad-content", "input_file part needs file_data or file_id")
        if part.get("filename"):
            file["filename"] = part["filename"]
        return _with_breakpoint(part, {"type": "file", "file": file})
    raise Unconvertible("bad-content", f"unsupported content part type {kind!r}")


def _image(url: Any, detail: Any) -> dict[str, Any]:
    return {"type": "image_url",
            "image_url": {"url": url, "detail": "high" if detail == "original" else detail}}


def _with_breakpoint(source: Mapping[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    breakpoint_ = source.get("prompt_cache_breakpoint")
    if breakpoint_ is not None:
        part["prompt_cache_breakpoint"] = breakpoint_
    return part
