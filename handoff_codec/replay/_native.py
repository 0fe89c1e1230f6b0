"""Items to a provider's own request body: the pipeline every native target shares.

The items are first read leniently (:mod:`._lenient`: null content as ``""``,
names as the target allows, each change noted), then exactly as for Chat
Completions (:func:`piece_of`, :func:`assemble`). Each message becomes a turn
of content blocks in the :class:`~._dialect.Dialect` the caller passes down:
system and developer text goes to the top-level system prompt, tool outputs
become tool-result blocks in a user turn, consecutive turns of one role are
merged, and only a turn still empty after merging carries the placeholder;
each is reported. The body is finally checked against the provider SDK's own
types when it is installed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..format.placeholders import DEFAULT_PLACEHOLDER
from ._chat import Message, Unconvertible, assemble, content_of, piece_of
from ._checks import tool_call_problems
from ._dialect import Dialect, Unmappable
from ._lenient import Names, named, read
from ._problems import Problem, Severity
from .errors import ReplayError

__all__ = ["NO_MESSAGES", "REPAIRS", "Conversion", "convert", "native_problems", "no_turn_message",
           "sdk_installed"]

REPAIRS = frozenset({
    "null-as-empty", "name-dropped", "name-inlined", "empty-turn", "leading-user-turn",
    "empty-system", "tool-id-rewritten", "parts-dropped", "tool-output-omitted",
    "trailing-whitespace",
})
"""The note codes that say the request differs from what the items say: something was
filled in, dropped or rewritten so that the target takes it. (``merged`` and
``system-moved`` regroup what the items say, and are no repair; nor is
``reasoning-dropped``: a provider's reasoning is never replayed, to any target.)"""

NO_MESSAGES = "no messages: every provider refuses a request without one"
_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


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

    @property
    def repairs(self) -> list[Problem]:
        """The notes of :data:`REPAIRS`: empty when the items replay to the target as they
        are (the CLI's ``replay`` and ``validate`` exit 1 otherwise)."""
        return [note for note in self.notes if note.code in REPAIRS]


# ---------------------------------------------------------------- the pipeline
@dataclass
class _Turn:
    role: str
    blocks: list[dict[str, Any]]
    origin: int
    source_role: str  # the role of the message that opened the turn


@dataclass
class _Run:
    """The state of one conversion: the dialect, the notes so far, the tool calls seen.

    With ``problems`` a list, what the target cannot take is collected there
    (code ``native``) and left out; with None it raises :class:`ReplayError`.
    """

    dialect: Dialect
    placeholder: str
    items: list[Any]
    problems: list[Problem] | None = None
    notes: list[Problem] = field(default_factory=list)
    call_names: dict[str, str] = field(default_factory=dict)
    call_items: dict[str, int] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, item in enumerate(self.items):
            if (isinstance(item, Mapping) and item.get("type") == "function_call"
                    and isinstance(item.get("call_id"), str) and isinstance(item.get("name"), str)):
                self.call_names.setdefault(item["call_id"], item["name"])
                self.call_items.setdefault(item["call_id"], index)

    def note(self, index: int | None, code: str, message: str,
             severity: Severity = "info") -> None:
        self.notes.append(Problem(index=index, code=code, message=message, severity=severity))

    def fail(self, index: int, message: str) -> None:
        """What the target cannot take: raised, or collected when checking."""
        if self.problems is None:
            raise ReplayError(message, index=index)
        self.problems.append(Problem(index=index, code="native", message=message))

    def tool_id(self, call_id: str, index: int) -> str:
        """``call_id`` as the API accepts it; a rewrite is reported once."""
        if not self.dialect.tool_ids or _TOOL_ID.match(call_id):
            return call_id
        if call_id not in self.ids:
            new = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id) or "_"
            if new in self.ids.values() or new in self.call_names:
                self.fail(index, f"tool call id {call_id!r} cannot be rewritten to {new!r}: "
                          "that id is taken")
            self.ids[call_id] = new
            self.note(index, "tool-id-rewritten", f"tool call id {call_id!r} written as "
                      f"{new!r}: {self.dialect.provider} takes only [a-zA-Z0-9_-]")
        return self.ids[call_id]


def convert(items: str | Iterable[Mapping[str, Any]], dialect: Dialect, *,
            placeholder: str | None = None, names: Names = "keep",
            check: bool = True) -> Conversion:
    """Convert ``items`` for ``dialect``; see :func:`handoff_codec.replay.to_provider`."""
    listed: list[Any] = ([{"role": "user", "content": items}] if isinstance(items, str)
                         else list(items))
    filler = DEFAULT_PLACEHOLDER if placeholder is None else placeholder
    if not isinstance(filler, str) or dialect.rejects(filler):
        wanted = ("text that is not empty" if dialect.rejects(" ") is False
                  else "text with a character that is not whitespace")
        raise ValueError(f"{dialect.provider} rejects the placeholder {filler!r}: give "
                         f"{wanted}, such as {DEFAULT_PLACEHOLDER!r} (the default)")
    reading = read(listed)
    readable, name_notes, _ = named(
        reading, names=names,
        why=f"{dialect.provider} takes no name on a message; {dialect.message_shape}")
    run = _Run(dialect, filler, readable)
    run.notes.extend(reading.notes)
    run.notes.extend(name_notes)
    pieces = []
    for index, item in enumerate(readable):
        try:
            piece = piece_of(item)
        except Unconvertible as exc:
            raise ReplayError(exc.msg, index=index) from None
        if piece.kind == "drop":
            run.note(index, "reasoning-dropped",
                     f"reasoning item dropped: {dialect.provider} cannot read another "
                     "provider's reasoning, and it is never replayed as text")
        if piece.kind not in ("tool", "drop"):
            run.notes.extend(Problem(index=index, code=code, message=message, severity="info")
                             for code, message in piece.notes)
        pieces.append(piece)
    messages, origins = assemble(pieces)
    pairing = tool_call_problems(messages, origins, readable)
    if pairing:
        first = min(pairing, key=lambda problem: problem.index or 0)
        raise ReplayError(first.message, index=first.index or 0)
    request, checked_with = _request(run, messages, origins, check=check)
    run.notes.sort(key=lambda note: -1 if note.index is None else note.index)
    return Conversion(target=dialect.target, request=request, notes=run.notes,
                      checked_with=checked_with)


def native_problems(items: list[Any], messages: list[Message], origins: list[int],
                    dialect: Dialect) -> tuple[str, list[Problem]]:
    """What ``dialect``'s API would refuse in these Chat Completions messages, all of it.

    ``validate``'s native check: ``items`` are read already (null content as
    ``""``, names out), and the tool-call pairing is checked by the caller.
    Returns the type the request was checked with and the problems (code
    ``native``); without the provider's SDK, ``("rules", [])``.
    """
    if not sdk_installed(dialect.sdk):
        return "rules", []
    run = _Run(dialect, DEFAULT_PLACEHOLDER, items, problems=[])
    _, checked_with = _request(run, messages, origins, check=True)
    assert run.problems is not None
    return checked_with, run.problems


def _request(run: _Run, messages: list[Message], origins: list[int], *,
             check: bool) -> tuple[dict[str, Any], str]:
    """The request body, and the type it was checked with (or ``"rules"``)."""
    dialect = run.dialect
    system, turns = _turns(run, messages, origins)
    native = [dialect.message(turn.role, turn.blocks) for turn in turns]
    request = dialect.request(system, native)
    if not check or not sdk_installed(dialect.sdk):
        return request, "rules"
    for position, error in dialect.schema_errors(request):
        index = turns[position].origin if position is not None else 0
        run.fail(index, f"the {dialect.provider} request does not validate against "
                 f"{dialect.schema}: {error}")
    return request, dialect.schema


def sdk_installed(module: str) -> bool:
    """Whether ``module`` (a provider SDK) imports."""
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _turns(run: _Run, messages: list[Message],
           origins: list[int]) -> tuple[list[str], list[_Turn]]:
    """System texts and turns: runs of one role merged first, then empty turns filled."""
    system: list[str] = []
    turns: list[_Turn] = []
    dialect = run.dialect
    for message, origin in zip(messages, origins, strict=True):
        role = message["role"]
        if role in ("system", "developer"):
            _system(run, system, message, origin, moved=bool(turns))
            continue
        blocks = _blocks(run, message, origin)
        turn_role = dialect.assistant_role if role == "assistant" else "user"
        if turns and turns[-1].role == turn_role:
            previous = turns[-1]
            if blocks:
                run.note(origin, "merged", f"{role} turn merged into the {turn_role} turn of "
                         f"item {previous.origin}: {dialect.provider} needs alternating roles")
            else:
                run.note(origin, "merged", f"{role} turn with no text merged into the "
                         f"{turn_role} turn of item {previous.origin}: {dialect.provider} "
                         "needs alternating roles and rejects an empty turn")
            previous.blocks.extend(blocks)
        else:
            turns.append(_Turn(turn_role, blocks, origin, role))
    for turn in turns:  # a turn still empty after merging cannot merge: it needs the placeholder
        if not turn.blocks:
            turn.blocks = [dialect.text(run.placeholder)]
            run.note(turn.origin, "empty-turn", f"{turn.source_role} turn with no text: "
                     f"{dialect.provider} rejects an empty turn, so it carries the "
                     f"placeholder {run.placeholder!r}")
    if turns and turns[0].role != "user":
        turns.insert(0, _Turn("user", [dialect.text(run.placeholder)], turns[0].origin, "user"))
        run.note(turns[0].origin, "leading-user-turn",
                 f"the conversation starts with an assistant turn; {dialect.provider} "
                 f"needs a user turn first, so one carrying {run.placeholder!r} comes before it")
    if turns and dialect.final_text_stripped and turns[-1].role == dialect.assistant_role:
        _strip_final(run, turns[-1])
    if not turns:
        why = no_turn_message(dialect.provider) if system else NO_MESSAGES
        if run.problems is None:
            raise ReplayError(why, index=None, code="no-messages")
        run.problems.append(Problem(index=None, code="no-messages", message=why))
    return system, turns


def _strip_final(run: _Run, turn: _Turn) -> None:
    """The final assistant turn's last text without trailing whitespace, as Anthropic needs:
    "final assistant content cannot end with trailing whitespace"."""
    last = turn.blocks[-1] if turn.blocks else None
    text = last.get("text") if isinstance(last, dict) and last.get("type") == "text" else None
    if not isinstance(text, str) or text == text.rstrip():
        return
    assert last is not None
    message = (f"the final assistant turn ends in whitespace: {run.dialect.provider} rejects "
               "it (\"final assistant content cannot end with trailing whitespace\"), so it "
               "is stripped")
    if run.problems is not None:
        run.problems.append(Problem(index=turn.origin, code="trailing-whitespace",
                                    message=message))
    last["text"] = text.rstrip()
    run.note(turn.origin, "trailing-whitespace", message)


def no_turn_message(provider: str) -> str:
    """Why a request with no user or assistant turn is refused: one wording everywhere."""
    return (f"no user or assistant turn: {provider} refuses a request without one "
            "(a system prompt alone is not enough)")


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
    blocks = _content_blocks(run, message.get("content"), origin)
    refusal = message.get("refusal")
    if isinstance(refusal, str) and not dialect.rejects(refusal):
        blocks.append(dialect.text(refusal))
    for call in message.get("tool_calls") or ():
        call_id, function = call["id"], call["function"]
        index = run.call_items.get(call_id, origin)
        try:
            args = json.loads(function["arguments"] or "{}")
        except json.JSONDecodeError as exc:
            run.fail(index, f"tool call arguments are not JSON: {exc.msg}")
            continue
        if not isinstance(args, dict):
            run.fail(index, f"{dialect.provider} needs tool call arguments that are a JSON "
                     "object")
            continue
        blocks.append(dialect.tool_call(run.tool_id(call_id, index), function["name"], args))
    return blocks


def _content_blocks(run: _Run, content: Any, origin: int) -> list[dict[str, Any]]:
    """Native blocks for Chat Completions content; rejected text is left out."""
    dialect = run.dialect
    if content is None:
        return []
    if isinstance(content, str):
        return [] if dialect.rejects(content) else [dialect.text(content)]
    blocks = []
    for part in content:
        kind = part["type"]
        try:
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
        except Unmappable as exc:
            run.fail(origin, str(exc))
    return blocks


def _tool_result(run: _Run, message: Message, origin: int) -> list[dict[str, Any]]:
    dialect = run.dialect
    call_id = message["tool_call_id"]
    name = run.call_names.get(call_id)
    if name is None:  # an orphan output: the caller reports the pairing
        return []
    output = run.items[origin]["output"]
    parts: Sequence[Mapping[str, Any]] | str = content_of(output, "tool", "function_call_output")
    if isinstance(parts, str):
        texts, media = [parts], []
    else:
        texts = [part["text"] for part in parts if part["type"] == "text"]
        media = _content_blocks(run, [part for part in parts if part["type"] != "text"], origin)
    texts = [text for text in texts if not dialect.rejects(text)]
    if not texts and not media and not dialect.empty_tool_result:
        texts = [run.placeholder]
        run.note(origin, "empty-turn", f"tool output with no text: {dialect.provider} rejects "
                 f"an empty tool result, so it carries the placeholder {run.placeholder!r}")
    index = run.call_items.get(call_id, origin)
    return dialect.tool_result(run.tool_id(call_id, index), name, texts, media)
