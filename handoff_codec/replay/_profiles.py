"""Which empty content each replay target rejects, in one table, and ``sanitize``.

Every target receives Chat Completions messages (directly, or through an
OpenAI-compatible proxy such as LiteLLM), so OpenAI's own rules apply to all
of them; :data:`PROFILES` adds what each provider rejects on top. Each rule
names a public report of the rejection; docs/replay.md has the whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = [
    "PROFILES",
    "TARGETS",
    "Profile",
    "Target",
    "check_placeholder",
    "content_problems",
    "copy_fixed",
    "fill_for",
    "profile_for",
    "rejects_text",
    "sanitize",
]

Target = Literal["chat_completions", "anthropic", "bedrock", "gemini", "mistral"]
TARGETS: tuple[Target, ...] = get_args(Target)
ALL_ROLES = ("system", "developer", "user", "assistant", "tool")
TEXT_PART_TYPES = ("text", "input_text", "output_text")


@dataclass(frozen=True)
class Profile:
    """The empty-content rules of one target.

    ``empty_text`` is which text it rejects in ``text_roles``: ``"blank"``
    (empty or whitespace-only), ``"empty"`` (only ``""``) or ``"none"``.
    ``with_tool_calls`` says whether that also holds for an assistant message
    that has tool calls. ``placeholder`` is the default replacement for an empty
    turn; ``sources`` maps each rule to a public report of it.
    """

    target: Target
    provider: str
    empty_text: Literal["blank", "empty", "none"]
    text_roles: tuple[str, ...]
    with_tool_calls: bool
    placeholder: str
    needs_contents: bool
    sources: tuple[tuple[str, str], ...]


# Rules every target inherits: they are OpenAI's, and every target is sent
# Chat Completions messages.
BASE_SOURCES: tuple[tuple[str, str], ...] = (
    ("null-content", "https://github.com/langchain-ai/langchainjs/issues/4153"),
    ("empty-content-list", "https://github.com/openai/openai-python/issues/1812"),
)

PROFILES: dict[str, Profile] = {
    "chat_completions": Profile(
        target="chat_completions", provider="OpenAI Chat Completions",
        empty_text="none", text_roles=(), with_tool_calls=False, placeholder="",
        needs_contents=False, sources=BASE_SOURCES,
    ),
    "anthropic": Profile(
        target="anthropic", provider="Anthropic (and OpenAI-compatible proxies to it)",
        empty_text="blank", text_roles=ALL_ROLES, with_tool_calls=True, placeholder=".",
        needs_contents=False, sources=(
            ("empty-text", "https://github.com/anthropics/claude-code/issues/59812"),
            ("blank-text", "https://github.com/anthropics/claude-code/issues/23440"),
            ("empty-content-list", "https://github.com/anthropics/claude-code/issues/3196"),
        ),
    ),
    "bedrock": Profile(
        target="bedrock", provider="AWS Bedrock (Converse)",
        empty_text="blank", text_roles=ALL_ROLES, with_tool_calls=True, placeholder=".",
        needs_contents=False, sources=(
            ("empty-text", "https://github.com/OpenHands/OpenHands/issues/5339"),
            ("blank-text", "https://github.com/NousResearch/hermes-agent/pull/63983"),
            ("empty-content-list", "https://github.com/cline/cline/issues/9213"),
        ),
    ),
    "gemini": Profile(
        target="gemini", provider="Gemini / Vertex AI",
        empty_text="empty", text_roles=ALL_ROLES, with_tool_calls=True, placeholder=".",
        needs_contents=True, sources=(
            ("empty-text", "https://github.com/google-gemini/deprecated-generative-ai-js/issues/361"),
            ("empty-content-list", "https://github.com/vercel/ai/issues/3775"),
            ("no-contents", "https://github.com/NousResearch/hermes-agent/issues/57940"),
        ),
    ),
    "mistral": Profile(
        target="mistral", provider="Mistral",
        empty_text="empty", text_roles=("assistant",), with_tool_calls=False, placeholder=".",
        needs_contents=False, sources=(
            ("empty-text", "https://github.com/OpenHands/OpenHands/issues/8685"),
        ),
    ),
}

Severity = Literal["error", "warning", "info"]
Found = tuple[str, str, Severity]  # (code, message, severity)


def profile_for(target: str) -> Profile:
    """The profile of ``target``, or ValueError naming the known targets."""
    try:
        return PROFILES[target]
    except (KeyError, TypeError):
        known = ", ".join(TARGETS)
        raise ValueError(f"unknown target {target!r}; expected one of {known}") from None


def rejects_text(profile: Profile, role: Any, text: str, *, with_tool_calls: bool = False) -> bool:
    """Whether ``profile``'s provider rejects ``text`` as a text block of ``role``."""
    if role not in profile.text_roles or (with_tool_calls and not profile.with_tool_calls):
        return False
    if profile.empty_text == "blank":
        return not text.strip()
    return profile.empty_text == "empty" and text == ""


def _has_tool_calls(message: Mapping[str, Any]) -> bool:
    return message.get("role") == "assistant" and bool(message.get("tool_calls"))


def content_problems(message: Mapping[str, Any], profile: Profile) -> list[Found]:
    """The empty-content problems of one Chat Completions message for ``profile``."""
    role = message.get("role")
    content = message.get("content")
    calls = _has_tool_calls(message)
    found: list[Found] = []
    if content is None and not calls:
        state = "missing" if "content" not in message else "null"
        found.append(("null-content", f"{role} content is {state} without tool_calls", "error"))
    elif isinstance(content, list) and not content:
        found.append(("empty-content-list", f"{role} content is an empty list", "error"))
    elif isinstance(content, str):
        found.extend(_text_problem(profile, role, content, calls, "content"))
    elif isinstance(content, list):
        for number, part in enumerate(content):
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                found.extend(_text_problem(profile, role, part["text"], calls, f"part {number}"))
    return found


def _text_problem(profile: Profile, role: Any, text: str, calls: bool, where: str) -> list[Found]:
    if not rejects_text(profile, role, text, with_tool_calls=calls):
        return []
    code = "empty-text" if text == "" else "blank-text"
    kind = "empty" if text == "" else "whitespace-only"
    return [(code, f"{profile.provider} rejects {kind} text ({role} {where})", "error")]


def check_placeholder(profile: Profile, placeholder: str | None) -> str:
    """``placeholder``, or the profile's default; ValueError if the target rejects it."""
    if placeholder is None:
        return profile.placeholder
    if not isinstance(placeholder, str):
        raise TypeError("placeholder must be a str")
    if any(rejects_text(profile, role, placeholder) for role in ALL_ROLES):
        raise ValueError(f"{profile.provider} rejects the placeholder {placeholder!r}")
    return placeholder


def fill_for(profile: Profile, role: Any, placeholder: str) -> str:
    """What replaces missing content of ``role``: ``""`` if accepted, else ``placeholder``."""
    return placeholder if rejects_text(profile, role, "") else ""


# ---------------------------------------------------------------- sanitize
def sanitize(messages: list[Any], *, provider: str, placeholder: str | None = None) -> list[Any]:
    """Outgoing Chat Completions messages with the empty content ``provider`` rejects fixed.

    An assistant message with tool calls gets ``None`` for empty content; other
    messages get ``placeholder`` (default: the provider's). Empty text parts
    are removed from list content, with the same fallback if none is left.
    Null content without tool calls becomes ``""`` where the provider accepts
    empty text, else ``placeholder``.
    A read-only scan runs first: when nothing needs fixing, ``messages`` itself
    is returned. Otherwise a new list is returned; the input, its messages and
    their content lists are never modified.
    """
    profile = profile_for(provider)
    filler = check_placeholder(profile, placeholder)
    fixed: list[Any] = copy_fixed(messages, lambda m: _fixed_message(m, profile, filler))
    return fixed


def copy_fixed(values: Sequence[Any], fix: Callable[[Any], Any | None]) -> Any:
    """``values`` itself when ``fix`` returns None for each; else a list with the fixes.

    The scan up to the first fix is read-only; nothing in ``values`` is modified.
    """
    start = next((index for index, value in enumerate(values) if fix(value) is not None), None)
    if start is None:
        return values
    out = list(values)
    for index in range(start, len(out)):
        fixed = fix(out[index])
        if fixed is not None:
            out[index] = fixed
    return out


def _fixed_message(message: Any, profile: Profile, filler: str) -> dict[str, Any] | None:
    """A fixed copy of ``message``, or None when it is fine (or not a message)."""
    if not isinstance(message, Mapping) or message.get("role") not in ALL_ROLES:
        return None
    role = message["role"]
    calls = _has_tool_calls(message)
    empty: str | None = None if calls else fill_for(profile, role, filler)
    content = message.get("content")
    new: Any
    if content is None:
        if calls:
            return None
        new = empty
    elif isinstance(content, str):
        if not rejects_text(profile, role, content, with_tool_calls=calls):
            return None
        new = empty
    elif isinstance(content, list):
        kept = [part for part in content if not _rejected_part(profile, role, part, calls)]
        if kept and len(kept) == len(content):
            return None
        new = kept or empty
    else:
        return None
    return {**message, "content": new}


def _rejected_part(profile: Profile, role: Any, part: Any, calls: bool) -> bool:
    return (
        isinstance(part, Mapping)
        and part.get("type") in TEXT_PART_TYPES
        and isinstance(part.get("text"), str)
        and rejects_text(profile, role, part["text"], with_tool_calls=calls)
    )
