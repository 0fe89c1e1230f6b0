"""Can these items be replayed to a model? ``validate`` tells, ``replayable`` fixes.

Each converted message is checked against openai's own
``ChatCompletionMessageParam`` with a pydantic ``TypeAdapter``, then against
the semantic rules Chat Completions enforces and the target's empty-content
rules (:mod:`handoff_codec.replay._profiles`); for a native target, the
messages are also given to ``_native`` with the target's dialect, and what it
refuses is reported too. All in one pass. Imports openai and pydantic.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, computed_field

from ._chat import ROLES, Piece, Unconvertible, assemble, is_easy_message, piece_of
from ._checks import drain, first_error, tool_call_problems
from ._lenient import CHAT_NAME_RULE, chat_keeps, inlined, read
from ._native import NO_MESSAGES, native_problems, no_turn_message
from ._problems import Problem
from ._profiles import (
    SAME,
    Profile,
    check_placeholder,
    content_problems,
    copy_fixed,
    fill_for,
    fixed_content,
    profile_for,
    rejects_text,
)
from ._targets import PROVIDERS, dialect_for

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

__all__ = ["Problem", "ValidationReport", "replayable", "schema_error", "tool_call_problems",
           "validate", "validated"]

CHAT_SCHEMA = "openai.types.chat.ChatCompletionMessageParam"
# Mistral's chat messages carry text, image_url and document_url chunks, a document being a
# URL (https://docs.mistral.ai/capabilities/document_ai/document_qna/): a file's inline bytes
# have no place. mistralai is not a dependency: this is the documented rule.
MISTRAL_FILE = ("Mistral takes no file part in a chat message (a document is a document_url "
                "chunk: a URL); send the file by URL, or its text as text")
# What the SDK converter refuses but the items still say plainly: read on after reporting it.
_READ_ON = ("name-key", "null-content", "missing-field")


class ValidationReport(BaseModel):
    """The messages the items convert to, and every problem found on the way."""

    target: str
    messages: list[dict[str, Any]] = Field(default_factory=list)
    problems: list[Problem] = Field(default_factory=list)
    checked_with: str = CHAT_SCHEMA

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
def chat_adapter() -> TypeAdapter[ChatCompletionMessageParam]:
    """openai's ``ChatCompletionMessageParam``, discriminated by role; built once."""
    from openai.types.chat import ChatCompletionMessageParam

    message_type = Annotated[ChatCompletionMessageParam, Field(discriminator="role")]
    return TypeAdapter(message_type)


def validate(items: str | Iterable[Mapping[str, Any]], *, target: str = "chat_completions",
             ) -> ValidationReport:
    """Check that ``items`` convert to valid Chat Completions messages for ``target``.

    Targets: ``chat_completions`` (OpenAI), ``anthropic``, ``bedrock``,
    ``gemini``, ``mistral``. The report is ``ok`` when no problem is an error,
    and it holds every problem at once: an item refused for its ``name``
    key or its null content is reported, then read
    on (as ``to_provider`` reads it) so that the problems of the messages
    are reported too. A ``name`` Chat Completions takes (on a user, assistant,
    system or developer message, matching ``^[a-zA-Z0-9_-]+$``) is no problem
    for ``chat_completions``; elsewhere it is a ``name-key`` error. For
    ``anthropic``, ``gemini`` and ``bedrock``, when that
    provider's SDK is installed, the messages are also converted to its
    native request and checked against its own types; otherwise the provider
    table's rules stand alone. ``report.checked_with`` names the types used,
    or says ``rules``. ``report.messages`` is empty when an item cannot be
    converted.
    """
    return validated(items, target=target)[0]


def validated(items: str | Iterable[Mapping[str, Any]], *, target: str = "chat_completions",
              ) -> tuple[ValidationReport, list[int]]:
    """:func:`validate`'s report, and the item index each of its messages starts at."""
    profile = profile_for(target)
    listed: list[Any] = ([{"role": "user", "content": items}] if isinstance(items, str)
                         else list(items))
    reading = read(listed)
    problems: list[Problem] = []
    pieces: list[Piece] = []
    unread: set[Any] = set()  # call ids of function calls that cannot be read
    for index, item in enumerate(listed):
        piece, found = _piece(item, reading.items[index], index, profile)
        problems.extend(found)
        if piece is None:
            if isinstance(item, Mapping) and item.get("type") == "function_call":
                unread.add(item.get("call_id"))
            piece = Piece("drop")  # keeps each piece at its item's index
        else:
            problems.extend(Problem(index=index, code=code, severity="info",
                                    message=_for_target(code, message, profile))
                            for code, message in piece.notes)
        pieces.append(piece)
    converted = not any(problem.severity == "error" for problem in problems)
    messages, origins = assemble(pieces)
    problems.extend(
        problem for problem in _message_problems(messages, origins, reading.items, profile)
        # An output answering a call already reported as unreadable is not an orphan too.
        if not (problem.code == "orphan-tool-output"
                and reading.items[problem.index or 0].get("call_id") in unread))
    checked_with = CHAT_SCHEMA
    dialect = dialect_for(target) if target in PROVIDERS else None
    if dialect is not None:
        checked_with, native = native_problems(reading.items, messages, origins, dialect)
        seen = {(problem.index, problem.message) for problem in problems}
        seen |= {(problem.index, problem.code) for problem in problems
                 if problem.code == "no-messages"}
        problems.extend(problem for problem in native
                        if (problem.index, problem.message) not in seen
                        and (problem.index, problem.code) not in seen)
    problems.sort(key=lambda problem: -1 if problem.index is None else problem.index)
    if not converted:
        messages, origins = [], []
    report = ValidationReport(target=target, messages=messages, problems=problems,
                              checked_with=checked_with)
    return report, origins


def _for_target(code: str, message: str, profile: Profile) -> str:
    """A conversion note worded for the target, not for the Chat Completions step."""
    if code != "reasoning-dropped" or profile.target == "chat_completions":
        return message
    dialect = dialect_for(profile.target)
    provider = profile.provider if dialect is None else dialect.provider
    return (f"reasoning item dropped: {provider} cannot read another provider's reasoning, "
            "and it is never replayed as text")


def _piece(item: Any, lenient: Any, index: int,
           profile: Profile) -> tuple[Piece | None, list[Problem]]:
    """``item``'s piece and the converter's objections; read on past a name or null content."""
    problems: list[Problem] = []
    current = item
    while True:
        try:
            return piece_of(current), problems
        except Unconvertible as exc:
            message = exc.msg
            role = item.get("role") if isinstance(item, Mapping) else None
            if exc.code == "name-key" and profile.target == "chat_completions":
                if chat_keeps(item, item.get("name")):  # OpenAI takes it: no problem
                    current = {key: value for key, value in current.items() if key != "name"}
                    continue
                message = (f"name {item.get('name')!r}: {CHAT_NAME_RULE}; handoff-codec replay "
                           "drops it (--names inline writes it into the text)")
            elif exc.code == "name-key":
                message = (f"name {item.get('name')!r}: {profile.provider} takes no name on a "
                           "message; handoff-codec replay drops it (--names inline writes it "
                           "into the text)")
            if exc.code == "null-content" and rejects_text(profile, role, ""):
                # "" is no answer where the target rejects empty text too.
                message = (f"{role} content is null, and {profile.provider} rejects empty "
                           f"text too: give the turn text, or let replayable() or handoff-codec "
                           f"replay fill in {profile.placeholder!r}")
            problems.append(Problem(index=index, code=exc.code, message=message))
            if exc.code == "name-key":
                current = {key: value for key, value in current.items() if key != "name"}
            elif exc.code in _READ_ON and lenient is not item and current is not lenient:
                current = lenient
            else:
                return None, problems


def _message_problems(messages: list[dict[str, Any]], origins: list[int],
                      items: list[Any], profile: Profile) -> list[Problem]:
    problems: list[Problem] = []
    for message, origin in zip(messages, origins, strict=True):
        schema = schema_error(message)
        if schema:
            problems.append(Problem(index=origin, code="schema", message=schema))
        problems.extend(Problem(index=origin, code=code, message=text, severity=severity)
                        for code, text, severity in content_problems(message, profile))
    problems.extend(tool_call_problems(messages, origins, items))
    if profile.target == "mistral":
        problems.extend(Problem(index=origin, code="unsupported-part", message=MISTRAL_FILE)
                        for message, origin in zip(messages, origins, strict=True)
                        if isinstance(message.get("content"), list)
                        and any(part.get("type") == "file" for part in message["content"]))
    dialect = dialect_for(profile.target)
    if not messages:
        problems.append(Problem(index=None, code="no-messages", message=NO_MESSAGES))
    elif ((dialect is not None or profile.needs_contents)
          and all(m.get("role") in ("system", "developer") for m in messages)):
        provider = profile.provider if dialect is None else dialect.provider
        problems.append(Problem(index=None, code="no-messages",
                                message=no_turn_message(provider)))
    return problems


def schema_error(message: dict[str, Any]) -> str:
    """The first problem openai's own param types find in ``message``, or ``""``."""
    try:
        drain(chat_adapter().validate_python(message))
    except ValidationError as exc:
        # Of a union's alternatives, the deepest error is from the one that matched best.
        return first_error(exc)
    return ""


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
        content = inlined(content, f"[{name}] ", part_type)
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
