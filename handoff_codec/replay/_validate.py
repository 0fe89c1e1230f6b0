"""Can these items be replayed to a model? ``validate`` tells, ``replayable`` fixes.

Each converted message is checked against openai's own
``ChatCompletionMessageParam`` with a pydantic ``TypeAdapter``, then against
the semantic rules Chat Completions enforces and the target's empty-content
rules (:mod:`handoff_codec.replay._profiles`). Imports openai and pydantic.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, computed_field

from ._chat import ROLES, Piece, Unconvertible, assemble, is_easy_message, piece_of
from ._problems import Problem
from ._profiles import (
    SAME,
    TEXT_PART_TYPES,
    Profile,
    check_placeholder,
    content_problems,
    copy_fixed,
    fill_for,
    fixed_content,
    profile_for,
    rejects_text,
)

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

__all__ = ["Problem", "ValidationReport", "replayable", "validate"]

class ValidationReport(BaseModel):
    """The messages the items convert to, and every problem found on the way."""

    target: str
    messages: list[dict[str, Any]] = Field(default_factory=list)
    problems: list[Problem] = Field(default_factory=list)
    checked_with: str = "openai.types.chat.ChatCompletionMessageParam"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """True when no problem is an error: the items can be replayed to ``target``."""
        return not any(problem.severity == "error" for problem in self.problems)

    @property
    def errors(self) -> list[Problem]:
        """The problems of severity ``error``."""
        return [problem for problem in self.problems if problem.severity == "error"]


@functools.lru_cache(maxsize=1)
def _adapter() -> TypeAdapter[ChatCompletionMessageParam]:
    from openai.types.chat import ChatCompletionMessageParam

    message_type = Annotated[ChatCompletionMessageParam, Field(discriminator="role")]
    return TypeAdapter(message_type)


def validate(items: str | Iterable[Mapping[str, Any]], *, target: str = "chat_completions",
             ) -> ValidationReport:
    """Check that ``items`` convert to valid Chat Completions messages for ``target``.

    Targets: ``chat_completions`` (OpenAI), ``anthropic``, ``bedrock``,
    ``gemini``, ``mistral``. The report is ``ok`` when no problem is an error.
    For ``anthropic``, ``gemini`` and ``bedrock``, when that provider's SDK
    is installed, the items are also converted to its native request
    (:func:`~handoff_codec.replay.to_provider`) and checked against its own
    types; otherwise the provider table's rules stand alone.
    ``report.checked_with`` names the types used, or says ``rules``.
    """
    profile = profile_for(target)
    items = [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
    problems: list[Problem] = []
    pieces: list[Piece] = []
    for index, item in enumerate(items):
        try:
            piece = piece_of(item)
        except Unconvertible as exc:
            problems.append(Problem(index=index, code=exc.code, message=exc.msg))
            continue
        pieces.append(piece)
        problems.extend(Problem(index=index, code=code, message=message, severity="info")
                        for code, message in piece.notes)
    if any(problem.severity == "error" for problem in problems):
        return ValidationReport(target=target, problems=problems)
    messages, origins = assemble(pieces)
    problems.extend(_message_problems(messages, origins, items, profile))
    checked_with = "openai.types.chat.ChatCompletionMessageParam"
    if target in ("anthropic", "gemini", "bedrock"):
        checked_with = _native_check(items, target, problems)
    problems.sort(key=lambda problem: -1 if problem.index is None else problem.index)
    return ValidationReport(target=target, messages=messages, problems=problems,
                            checked_with=checked_with)


def _native_check(items: list[Any], target: str, problems: list[Problem]) -> str:
    """Convert to ``target``'s own request and check it with the SDK's types, if installed."""
    from .._errors import ReplayError
    from ._native import convert, sdk_installed
    from ._provider import dialect_for

    dialect = dialect_for(target)
    assert dialect is not None
    if not sdk_installed(dialect.sdk):
        return "rules"
    if not any(problem.severity == "error" for problem in problems):
        try:
            convert(items, dialect)
        except ReplayError as exc:
            problems.append(Problem(index=exc.index, code="native", message=exc.msg))
    return dialect.schema


def _message_problems(messages: list[dict[str, Any]], origins: list[int],
                      items: list[Any], profile: Profile) -> list[Problem]:
    problems: list[Problem] = []
    for message, origin in zip(messages, origins, strict=True):
        schema = _schema_error(message)
        if schema:
            problems.append(Problem(index=origin, code="schema", message=schema))
        problems.extend(Problem(index=origin, code=code, message=text, severity=severity)
                        for code, text, severity in content_problems(message, profile))
    problems.extend(tool_call_problems(messages, origins, items))
    if not messages:
        problems.append(Problem(index=None, code="no-messages", severity="warning",
                                message="no messages: a request needs at least one"))
    elif profile.needs_contents and all(m.get("role") in ("system", "developer")
                                        for m in messages):
        problems.append(Problem(index=None, code="no-contents", severity="warning",
                                message=f"{profile.provider} needs a message that is not "
                                        "a system or developer message"))
    return problems


def tool_call_problems(messages: Sequence[Mapping[str, Any]], origins: Sequence[int],
                       items: Sequence[Any]) -> list[Problem]:
    """Every tool call answered by the tool messages right after it, and only those.

    Chat Completions: "An assistant message with 'tool_calls' must be followed
    by tool messages responding to each 'tool_call_id'"
    (https://github.com/BerriAI/litellm/issues/10083); Anthropic, Gemini and
    Bedrock need the answers in the next turn too. Call ids are unique, and
    each is answered once: "`tool_use` ids must be unique"
    (https://github.com/anthropics/claude-code/issues/20901).
    """
    call_origin = {item.get("call_id"): index for index, item in enumerate(items)
                   if isinstance(item, Mapping) and item.get("type") == "function_call"}
    calls: dict[Any, int] = {}  # tool call id -> item index, in order
    answered: set[Any] = set()
    waiting: dict[Any, int] = {}  # calls of the last assistant message not answered yet
    late: set[Any] = set()
    problems: list[Problem] = []
    seen: set[Any] = set()
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("type") == "function_call":
            if item.get("call_id") in seen:
                problems.append(Problem(index=index, code="duplicate-tool-call-id",
                                        message=f"tool call id {item.get('call_id')!r} "
                                                "is used by an earlier call"))
            seen.add(item.get("call_id"))
    for message, origin in zip(messages, origins, strict=True):
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in calls:
                problems.append(Problem(
                    index=origin, code="orphan-tool-output",
                    message=f"tool output {call_id!r} answers no earlier tool call"))
            elif call_id in answered:
                problems.append(Problem(
                    index=origin, code="duplicate-tool-output",
                    message=f"tool call {call_id!r} is answered more than once"))
            else:
                answered.add(call_id)
                waiting.pop(call_id, None)
            continue
        late.update(waiting)
        waiting = {}
        for call in message.get("tool_calls") or ():
            call_id = call.get("id")
            calls.setdefault(call_id, call_origin.get(call_id, origin))
            waiting[call_id] = calls[call_id]
    for call_id, origin in calls.items():
        if call_id not in answered:
            problems.append(Problem(index=origin, code="unanswered-tool-call",
                                    message=f"tool call {call_id!r} has no tool output"))
        elif call_id in late:
            problems.append(Problem(
                index=origin, code="tool-call-answered-late",
                message=f"tool call {call_id!r} is answered after another message; its "
                        "output must come in the tool messages right after the call"))
    return problems


def _schema_error(message: dict[str, Any]) -> str:
    """The first problem openai's own param types find in ``message``, or ``""``."""
    try:
        _drain(_adapter().validate_python(message))
    except ValidationError as exc:
        # Of a union's alternatives, the deepest error is from the one that matched best.
        error = max(exc.errors(), key=lambda error: len(error["loc"]))
        where = ".".join(str(part) for part in error["loc"])
        return f"{where}: {error['msg']}" if where else error["msg"]
    return ""


def _drain(value: Any) -> None:
    """Run pydantic's lazy validation of every ``Iterable`` field (an iterator)."""
    if isinstance(value, Iterator):
        for element in value:
            _drain(element)
    elif isinstance(value, Mapping):
        for element in value.values():
            _drain(element)
    elif isinstance(value, list):
        for element in value:
            _drain(element)


# ---------------------------------------------------------------- replayable
def replayable(items: Sequence[Any], *, target: str = "chat_completions",
               names: Literal["drop", "inline"] = "drop",
               placeholder: str | None = None) -> list[Any]:
    """``items`` changed as little as needed to replay them to ``target``.

    * a ``name`` the Agents SDK converter rejects is dropped, or with
      ``names="inline"`` every message name is moved into the content as
      ``"[name] "``;
    * missing or ``None`` content becomes ``""``, or ``placeholder`` (default:
      the target's) where the target rejects empty text; empty text parts
      the target rejects are removed, with the same fallback.

    No item is added, removed or reordered, and the input is never modified.
    When nothing needs changing, ``items`` itself is returned after one scan.
    Problems these rules do not cover (unknown item types, unanswered tool
    calls) are left for :func:`validate` to report.
    """
    if names not in ("drop", "inline"):
        raise ValueError(f"names must be 'drop' or 'inline', not {names!r}")
    profile = profile_for(target)
    filler = check_placeholder(profile, placeholder)
    fixed: list[Any] = copy_fixed(items, lambda item: _fixed_item(item, profile, names, filler))
    return fixed if isinstance(fixed, list) else list(fixed)


def _fixed_item(item: Any, profile: Profile, names: str, filler: str) -> dict[str, Any] | None:
    """A fixed copy of ``item``, or None when it needs nothing."""
    if not isinstance(item, Mapping):
        return None
    kind = item.get("type")
    if kind == "function_call_output":
        output = fixed_content(item.get("output"), lambda text: rejects_text(profile, "tool", text),
                               fill_for(profile, "tool", filler), keep_empty_list=True)
        return None if output is SAME else {**item, "output": output}
    role = item.get("role")
    if role not in ROLES or kind not in (None, "message"):
        return None
    as_parts = kind == "message" and role == "assistant" and "id" in item
    part_type = "output_text" if as_parts else "input_text"
    content = item.get("content")
    name = item.get("name")
    if names == "inline" and isinstance(name, str) and name:
        content = _inlined(content, f"[{name}] ", part_type)
    if as_parts and not content:
        content = []  # the converter reads None and "" as no parts: no text at all
    new = fixed_content(content, lambda text: rejects_text(profile, role, text),
                        fill_for(profile, role, filler), part_type=part_type if as_parts else None)
    if new is not SAME:
        content = [{"type": part_type, "text": new}] if as_parts and isinstance(new, str) else new
    if content is item.get("content") and "content" in item and "name" not in item:
        return None
    fixed = {**item, "content": content}
    if "name" in item:
        del fixed["name"]
        if names == "drop" and not is_easy_message(fixed):
            fixed["name"] = name  # the converter accepts (and ignores) it here
    return None if fixed == item else fixed


def _inlined(content: Any, prefix: str, part_type: str) -> Any:
    if content is None:
        content = [] if part_type == "output_text" else ""
    if isinstance(content, str):
        return prefix + content
    if isinstance(content, list):
        for number, part in enumerate(content):
            if isinstance(part, Mapping) and part.get("type") in TEXT_PART_TYPES:
                return [*content[:number], {**part, "text": prefix + str(part.get("text", ""))},
                        *content[number + 1:]]
        return [{"type": part_type, "text": prefix}, *content]
    return content
