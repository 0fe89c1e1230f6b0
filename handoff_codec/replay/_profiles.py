"""Which empty content each replay target rejects, in one table, and ``sanitize``.

Every target receives Chat Completions messages (directly, or through an
OpenAI-compatible proxy such as LiteLLM), so OpenAI's own rules apply to all
of them; :data:`PROFILES` adds what each provider rejects on top. Each rule
names a public report of the rejection. The table itself is data, in
``profiles.json`` beside this module; docs/replay.md shows it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

if TYPE_CHECKING:
    from ._problems import Severity

__all__ = [
    "PROFILES",
    "TARGETS",
    "Profile",
    "Target",
    "check_placeholder",
    "content_problems",
    "copy_fixed",
    "fill_for",
    "fixed_content",
    "profile_for",
    "rejects_text",
    "sanitize",
]

Target = Literal["chat_completions", "anthropic", "bedrock", "gemini", "mistral"]
TARGETS: tuple[Target, ...] = get_args(Target)
"""The targets ``validate``, ``replayable`` and ``sanitize`` know the empty-content rules of."""
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


def _load_profiles() -> Mapping[str, Profile]:
    """The table in ``profiles.json``, beside this module (shipped in the wheel)."""
    table = json.loads(resources.files(__package__).joinpath("profiles.json")
                       .read_text(encoding="utf-8"))
    profiles = {
        target: Profile(
            target=cast(Target, target), provider=spec["provider"],
            empty_text=spec["empty_text"], text_roles=tuple(spec["text_roles"]),
            with_tool_calls=spec["with_tool_calls"], placeholder=spec["placeholder"],
            needs_contents=spec["needs_contents"], sources=tuple(spec["sources"].items()),
        )
        for target, spec in table["targets"].items()
    }
    if tuple(profiles) != TARGETS:
        raise RuntimeError(f"profiles.json names {tuple(profiles)}, not {TARGETS}")
    return MappingProxyType(profiles)


PROFILES: Mapping[str, Profile] = _load_profiles()
"""Each target's :class:`Profile`, read once from ``profiles.json``; a read-only mapping."""

Found = tuple[str, str, "Severity"]  # (code, message, severity)


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
        wanted = ("text with a character that is not whitespace" if profile.empty_text == "blank"
                  else "text that is not empty")
        raise ValueError(f"{profile.provider} rejects the placeholder {placeholder!r}: give "
                         f"{wanted}, such as {profile.placeholder!r} (the default)")
    return placeholder


def fill_for(profile: Profile, role: Any, placeholder: str) -> str:
    """What replaces missing content of ``role``: ``""`` if accepted, else ``placeholder``."""
    return placeholder if rejects_text(profile, role, "") else ""


# ---------------------------------------------------------------- the one fixer
SAME: Any = object()  # fixed_content's "nothing to change"


def fixed_content(content: Any, rejects: Callable[[str], bool], empty: str | None, *,
                  keep_empty_list: bool = False, part_type: str | None = None) -> Any:
    """``content`` with the text a target rejects fixed, or :data:`SAME`.

    ``rejects(text)`` says which text the target refuses. Rejected (or missing)
    string content becomes ``empty``: the placeholder, ``""`` where the target
    accepts it, or ``None`` where null content is the standard form (an
    assistant message with tool calls). Rejected text parts are removed from
    list content; when none is left, one part of the same type carries
    ``empty``, so the content keeps its shape and ``restore_empty`` can undo
    it. ``[]`` becomes ``empty``, or one ``part_type`` part carrying it when
    the content must stay a list, or stays as it is with ``keep_empty_list``.
    """
    if content is None:
        return SAME if empty is None else empty
    if isinstance(content, str):
        return empty if rejects(content) else SAME
    if not isinstance(content, list):
        return SAME
    if not content:
        if keep_empty_list:
            return SAME
        if part_type is None or empty is None:
            return empty
        return [{"type": part_type, "text": empty}]
    removed = [part for part in content if _is_text_part(part) and rejects(part["text"])]
    if not removed:
        return SAME
    kept = [part for part in content if not any(part is gone for gone in removed)]
    if kept:
        return kept
    return None if empty is None else [{**removed[0], "text": empty}]


def _is_text_part(part: Any) -> bool:
    return (isinstance(part, Mapping) and part.get("type") in TEXT_PART_TYPES
            and isinstance(part.get("text"), str))


def copy_fixed(values: Sequence[Any], fix: Callable[[Any], Any | None]) -> Any:
    """``values`` itself when ``fix`` returns None for each; else a list with the fixes.

    ``fix`` is called once per value; nothing in ``values`` is modified.
    """
    out: list[Any] | None = None
    for index, value in enumerate(values):
        fixed = fix(value)
        if fixed is not None:
            if out is None:
                out = list(values)
            out[index] = fixed
    return values if out is None else out


# ---------------------------------------------------------------- sanitize
def sanitize(messages: list[Any], *, target: str | None = None, placeholder: str | None = None,
             provider: str | None = None) -> list[Any]:
    """Outgoing Chat Completions messages with the empty content ``target`` rejects fixed.

    An assistant message with tool calls gets ``None`` for empty content; other
    messages get ``placeholder`` (default: the target's, which
    ``restore_empty`` recognises). Empty text parts are removed from list
    content; when none is left, one part keeps the placeholder. Null content
    without tool calls becomes ``""`` where the target accepts empty text.
    When nothing needs fixing, ``messages`` itself is returned. Otherwise a new
    list is returned; the input, its messages and their content lists are
    never modified. ``provider=`` is the deprecated name of ``target=``.
    """
    if provider is not None:
        if target is not None:
            raise TypeError("sanitize() takes target= or provider=, not both")
        warnings.warn("sanitize(provider=...) is deprecated; use target=",
                      DeprecationWarning, stacklevel=2)
        target = provider
    if target is None:
        raise TypeError("sanitize() missing required keyword argument: 'target'")
    profile = profile_for(target)
    filler = check_placeholder(profile, placeholder)
    fixed: list[Any] = copy_fixed(messages, lambda m: _fixed_message(m, profile, filler))
    return fixed


def _fixed_message(message: Any, profile: Profile, filler: str) -> dict[str, Any] | None:
    """A fixed copy of ``message``, or None when it is fine (or not a message)."""
    if not isinstance(message, Mapping) or message.get("role") not in ALL_ROLES:
        return None
    role = message["role"]
    calls = _has_tool_calls(message)
    new = fixed_content(
        message.get("content"),
        lambda text: rejects_text(profile, role, text, with_tool_calls=calls),
        None if calls else fill_for(profile, role, filler),
    )
    return None if new is SAME else {**message, "content": new}
