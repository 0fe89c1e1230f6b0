"""Items to a provider's own request body: the pipeline every native target shares.

The items are first read exactly as for Chat Completions (:func:`piece_of`,
:func:`assemble`), so a native conversion accepts what ``validate`` accepts.
Then each message becomes a turn of content blocks in the target's
:class:`Dialect`: system and developer text goes to the top-level system
prompt, tool outputs become tool-result blocks in a user turn, and
consecutive turns of one role are merged, each merge reported. The body is
finally checked against the provider SDK's own types when it is installed.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .._errors import ReplayError
from ._chat import Message, Unconvertible, _content, assemble, piece_of
from ._placeholders import DEFAULT_PLACEHOLDER
from ._problems import Problem, Severity
from ._validate import tool_call_problems

__all__ = ["Conversion", "Dialect", "Unmappable", "convert", "data_url", "first_error",
           "guess_type"]

_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


class Unmappable(Exception):
    """A part or value the target has no place for; the pipeline adds the item index."""


class Conversion(BaseModel):
    """A native request body, and what the conversion had to do to build it.

    ``request`` is the body to send (``messages`` and ``system`` for Anthropic
    and Bedrock, ``contents`` and ``system_instruction`` for Gemini,
    ``messages`` for Chat Completions): pass it as keyword arguments to the
    SDK's create call, with the model and your other settings. Bedrock blocks
    carry raw ``bytes``, as boto3 wants them; JSON output writes them base64.
    ``notes`` say what changed and why (``merged``, ``system-moved``,
    ``empty-turn``, ``reasoning-dropped``, ...), each naming the item.
    ``checked_with`` names the SDK type the body was validated against, or
    ``"rules"`` when that SDK is not installed.
    """

    model_config = ConfigDict(frozen=True, ser_json_bytes="base64")

    target: str
    request: dict[str, Any]
    notes: list[Problem]
    checked_with: str

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation turns: ``messages``, or Gemini's ``contents``."""
        turns: list[dict[str, Any]] = self.request.get("messages", self.request.get("contents", []))
        return turns

    @property
    def merges(self) -> list[Problem]:
        """One note per turn merged into the turn before it."""
        return [note for note in self.notes if note.code == "merged"]


class Dialect:
    """How one provider spells content blocks, turns and the request; see the subclasses."""

    target: ClassVar[str]
    provider: ClassVar[str]
    sdk: ClassVar[str]  # the module whose types check the request
    schema: ClassVar[str]  # the name of that type, for reports
    assistant_role: ClassVar[str] = "assistant"
    tool_ids: ClassVar[bool] = True  # tool calls carry ids the API restricts to [a-zA-Z0-9_-]
    empty_tool_result: ClassVar[bool] = True  # a tool result may carry no text

    def rejects(self, text: str) -> bool:
        """Whether the API refuses ``text`` as a text block."""
        return not text.strip()

    def text(self, text: str) -> dict[str, Any]:
        raise NotImplementedError

    def image(self, url: str) -> dict[str, Any]:
        raise NotImplementedError

    def audio(self, data: str, audio_format: str) -> dict[str, Any]:
        raise Unmappable(f"{self.provider} takes no audio input")

    def file(self, file: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def tool_result(self, call_id: str, name: str, texts: list[str],
                    media: list[dict[str, Any]]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def message(self, role: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        """One turn; Anthropic and Bedrock spell it ``{"role", "content"}``."""
        return {"role": role, "content": blocks}

    def request(self, system: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The body; Anthropic and Bedrock take ``system`` text blocks and ``messages``."""
        body: dict[str, Any] = {}
        if system:
            body["system"] = [self.text(text) for text in system]
        body["messages"] = messages
        return body

    def schema_errors(self, request: Mapping[str, Any]) -> list[tuple[int | None, str]]:
        """(message position or None for the system prompt, error) per invalid part."""
        raise NotImplementedError


# ---------------------------------------------------------------- helpers for dialects
def data_url(url: str) -> tuple[str, str] | None:
    """``(media type, base64 data)`` of a ``data:<type>;base64,<data>`` URL, else None."""
    if not url.startswith("data:"):
        return None
    header, comma, data = url[5:].partition(",")
    media_type, _, encoding = header.partition(";")
    if not comma or encoding.lower() != "base64" or not media_type:
        raise Unmappable("a data URL needs a media type and base64 data")
    return media_type.lower(), data


def decoded(data: str) -> bytes:
    """Base64 ``data`` as bytes, or :class:`Unmappable`."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Unmappable("file or image data is not valid base64") from None


def guess_type(name: str) -> str:
    """The media type of a file name or URL path, or :class:`Unmappable`."""
    guessed, _ = mimetypes.guess_type(name.split("?", 1)[0], strict=False)
    if guessed is None:
        raise Unmappable(f"cannot tell the media type of {name[:80]!r}")
    return guessed


def file_payload(file: Mapping[str, Any], provider: str) -> tuple[str, str, str]:
    """``(media type, base64 data, filename)`` of a Chat Completions file part."""
    data = file.get("file_data")
    filename = file.get("filename") or ""
    if not data:
        raise Unmappable(f"an uploaded file id means nothing to {provider}; "
                         "inline the file as file_data")
    parsed = data_url(data)
    if parsed is not None:
        return parsed[0], parsed[1], filename
    return guess_type(filename) if filename else "", data, filename


def first_error(exc: ValidationError) -> str:
    """The deepest error of a pydantic union: the one from the alternative that fit best."""
    error = max(exc.errors(), key=lambda error: len(error["loc"]))
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


# ---------------------------------------------------------------- the pipeline
@dataclass
class _Turn:
    role: str
    blocks: list[dict[str, Any]]
    origin: int


@dataclass
class _Run:
    """The state of one conversion: the dialect, the notes so far, the tool calls seen."""

    dialect: Dialect
    placeholder: str
    items: list[Any]
    notes: list[Problem] = field(default_factory=list)
    call_names: dict[str, str] = field(default_factory=dict)
    call_items: dict[str, int] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def note(self, index: int | None, code: str, message: str,
             severity: Severity = "info") -> None:
        self.notes.append(Problem(index=index, code=code, message=message, severity=severity))

    def tool_id(self, call_id: str, index: int) -> str:
        """``call_id`` as the API accepts it; a rewrite is reported once."""
        if not self.dialect.tool_ids or _TOOL_ID.match(call_id):
            return call_id
        if call_id not in self.ids:
            new = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id) or "_"
            if new in self.ids.values() or new in self.call_names:
                raise ReplayError(f"tool call id {call_id!r} cannot be rewritten to {new!r}: "
                                  "that id is taken", index=index)
            self.ids[call_id] = new
            self.note(index, "tool-id-rewritten", f"tool call id {call_id!r} written as "
                      f"{new!r}: {self.dialect.provider} takes only [a-zA-Z0-9_-]")
        return self.ids[call_id]


def convert(items: str | Iterable[Mapping[str, Any]], dialect: Dialect, *,
            placeholder: str | None = None, check: bool = True) -> Conversion:
    """Convert ``items`` for ``dialect``; see :func:`handoff_codec.replay.to_provider`."""
    listed: list[Any] = ([{"role": "user", "content": items}] if isinstance(items, str)
                         else list(items))
    filler = DEFAULT_PLACEHOLDER if placeholder is None else placeholder
    if not isinstance(filler, str) or dialect.rejects(filler):
        raise ValueError(f"{dialect.provider} rejects the placeholder {filler!r}")
    run = _Run(dialect, filler, listed)
    pieces = []
    for index, item in enumerate(listed):
        try:
            piece = piece_of(item)
        except Unconvertible as exc:
            raise ReplayError(exc.msg, index=index) from None
        if piece.kind == "drop":
            run.note(index, "reasoning-dropped",
                     f"reasoning item dropped: {dialect.provider} cannot read another "
                     "provider's reasoning, and it is never replayed as text")
        elif piece.kind == "call" and piece.value is not None:
            function = piece.value["function"]
            run.call_names.setdefault(piece.value["id"], function["name"])
            run.call_items.setdefault(piece.value["id"], index)
        if piece.kind not in ("tool", "drop"):
            run.notes.extend(Problem(index=index, code=code, message=message, severity="info")
                             for code, message in piece.notes)
        pieces.append(piece)
    messages, origins = assemble(pieces)
    pairing = tool_call_problems(messages, origins, listed)
    if pairing:
        first = min(pairing, key=lambda problem: problem.index or 0)
        raise ReplayError(first.message, index=first.index or 0)
    system, turns = _turns(run, messages, origins)
    native = [dialect.message(turn.role, turn.blocks) for turn in turns]
    request = dialect.request(system, native)
    checked_with = "rules"
    if check and sdk_installed(dialect.sdk):
        checked_with = dialect.schema
        for position, error in dialect.schema_errors(request):
            index = turns[position].origin if position is not None else 0
            raise ReplayError(f"the {dialect.provider} request does not validate against "
                              f"{dialect.schema}: {error}", index=index)
    run.notes.sort(key=lambda note: -1 if note.index is None else note.index)
    return Conversion(target=dialect.target, request=request, notes=run.notes,
                      checked_with=checked_with)


def sdk_installed(module: str) -> bool:
    """Whether ``module`` (a provider SDK) imports."""
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _turns(run: _Run, messages: list[Message],
           origins: list[int]) -> tuple[list[str], list[_Turn]]:
    system: list[str] = []
    turns: list[_Turn] = []
    dialect = run.dialect
    for message, origin in zip(messages, origins, strict=True):
        role = message["role"]
        if role in ("system", "developer"):
            _system(run, system, message, origin, moved=bool(turns))
            continue
        try:
            blocks = _blocks(run, message, origin)
        except Unmappable as exc:
            raise ReplayError(str(exc), index=origin) from None
        turn_role = dialect.assistant_role if role == "assistant" else "user"
        if not blocks and turns and turns[-1].role == turn_role:
            run.note(origin, "merged", f"{role} turn with no text merged into the {turn_role} "
                     f"turn of item {turns[-1].origin}: {dialect.provider} needs alternating "
                     "roles and rejects an empty turn")
            continue
        if not blocks:
            blocks = [dialect.text(run.placeholder)]
            run.note(origin, "empty-turn", f"{role} turn with no text: {dialect.provider} "
                     f"rejects an empty turn, so it carries the placeholder {run.placeholder!r}")
        if turns and turns[-1].role == turn_role:
            turns[-1].blocks.extend(blocks)
            run.note(origin, "merged", f"{role} turn merged into the {turn_role} turn of item "
                     f"{turns[-1].origin}: {dialect.provider} needs alternating roles")
        else:
            turns.append(_Turn(turn_role, blocks, origin))
    if turns and turns[0].role != "user":
        turns.insert(0, _Turn("user", [dialect.text(run.placeholder)], turns[0].origin))
        run.note(turns[0].origin, "leading-user-turn",
                 f"the conversation starts with an assistant turn; {dialect.provider} "
                 f"needs a user turn first, so one carrying {run.placeholder!r} comes before it")
    if not turns:
        run.note(None, "no-messages", f"no user or assistant turn: {dialect.provider} "
                 "needs at least one", severity="warning")
    return system, turns


def _system(run: _Run, system: list[str], message: Message, origin: int, *, moved: bool) -> None:
    content = message.get("content")
    texts = [content] if isinstance(content, str) else [part["text"] for part in content or ()]
    kept = [text for text in texts if not run.dialect.rejects(text)]
    system.extend(kept)
    if not kept:
        run.note(origin, "empty-system", f"{message['role']} message with no text left out: "
                 f"{run.dialect.provider} rejects empty system text")
    elif moved:
        run.note(origin, "system-moved", f"{message['role']} message moved to the top-level "
                 f"system prompt: {run.dialect.provider} has no system turn mid-conversation")


def _blocks(run: _Run, message: Message, origin: int) -> list[dict[str, Any]]:
    dialect = run.dialect
    role = message["role"]
    if role == "tool":
        return _tool_result(run, message, origin)
    blocks = _content_blocks(dialect, message.get("content"))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and not dialect.rejects(refusal):
        blocks.append(dialect.text(refusal))
    for call in message.get("tool_calls") or ():
        call_id, function = call["id"], call["function"]
        index = run.call_items.get(call_id, origin)
        try:
            args = json.loads(function["arguments"] or "{}")
        except json.JSONDecodeError as exc:
            raise ReplayError(f"tool call arguments are not JSON: {exc.msg}", index=index) from None
        if not isinstance(args, dict):
            raise ReplayError(f"{dialect.provider} needs tool call arguments that are a JSON "
                              "object", index=index)
        blocks.append(dialect.tool_call(run.tool_id(call_id, index), function["name"], args))
    return blocks


def _content_blocks(dialect: Dialect, content: Any) -> list[dict[str, Any]]:
    """Native blocks for Chat Completions content; rejected text is left out."""
    if content is None:
        return []
    if isinstance(content, str):
        return [] if dialect.rejects(content) else [dialect.text(content)]
    blocks = []
    for part in content:
        kind = part["type"]
        if kind == "text":
            if not dialect.rejects(part["text"]):
                blocks.append(dialect.text(part["text"]))
        elif kind == "image_url":
            blocks.append(dialect.image(part["image_url"]["url"]))
        elif kind == "input_audio":
            audio = part["input_audio"]
            blocks.append(dialect.audio(audio["data"], audio["format"]))
        else:  # "file": the only other part the Chat Completions reading produces
            blocks.append(dialect.file(part["file"]))
    return blocks


def _tool_result(run: _Run, message: Message, origin: int) -> list[dict[str, Any]]:
    dialect = run.dialect
    call_id = message["tool_call_id"]
    output = run.items[origin]["output"]
    parts: Sequence[Mapping[str, Any]] | str = _content(output, "tool", "function_call_output")
    if isinstance(parts, str):
        texts, media = [parts], []
    else:
        texts = [part["text"] for part in parts if part["type"] == "text"]
        media = _content_blocks(dialect, [part for part in parts if part["type"] != "text"])
    texts = [text for text in texts if not dialect.rejects(text)]
    if not texts and not media and not dialect.empty_tool_result:
        texts = [run.placeholder]
        run.note(origin, "empty-turn", f"tool output with no text: {dialect.provider} rejects "
                 f"an empty tool result, so it carries the placeholder {run.placeholder!r}")
    index = run.call_items.get(call_id, origin)
    return dialect.tool_result(run.tool_id(call_id, index), run.call_names[call_id], texts, media)
