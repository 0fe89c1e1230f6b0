"""Known empty-turn placeholders, and ``restore_empty``, which turns them back into empty turns.

Providers reject empty turns, so every tool that replays a conversation writes
something into them, each its own way (:data:`PLACEHOLDERS`, each with the
public source that writes it). Stored and summarized again, these placeholders
pile up hop after hop, and models quote them. :func:`restore_empty` undoes
them before a transcript is stored or handed on; :func:`restore_empty_report`
also says what it restored and which turns *start* with a placeholder phrase
followed by real text (a leak a model echoed back), which it never cuts.

Standard library only.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_PLACEHOLDER",
    "HIDDEN_PART_TYPES",
    "PLACEHOLDERS",
    "SENTINEL",
    "Leak",
    "Placeholder",
    "RestoreEmptyReport",
    "Restored",
    "is_leaked_sentinel",
    "restore_empty",
    "restore_empty_report",
    "visible_text",
]

DEFAULT_PLACEHOLDER = "."
SENTINEL = "(empty)"
"""``is_leaked_sentinel``'s default: a harness's marker of an empty turn (Hermes Agent's)."""
HIDDEN_PART_TYPES = frozenset(
    {"thinking", "redacted_thinking", "reasoning", "reasoning_content", "reasoning_text"}
)
"""Content part types a user never sees: text in them does not make a turn visible."""
_THINK_TAGS = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)


def visible_text(content: Any) -> str:
    """The visible prose of ``content``: a str, a list of blocks, or a mapping.

    Thinking, reasoning, redacted_thinking and reasoning_content parts are left
    out, and so are ``<think>...</think>`` spans in a string. Never raises: a
    shape it does not know gives ``""``.
    """
    try:
        return _visible(content)
    except Exception:  # a bad shape must not break the caller's turn
        return ""


def _visible(content: Any) -> str:
    if isinstance(content, str):
        return _THINK_TAGS.sub("", content)
    if isinstance(content, Mapping):
        if content.get("type") in HIDDEN_PART_TYPES:
            return ""
        if "content" in content:
            return _visible(content["content"])
        for key in ("text", "refusal"):
            if isinstance(content.get(key), str):
                return _THINK_TAGS.sub("", content[key])
        return ""
    if isinstance(content, (list, tuple)):
        return "".join(_visible(part) for part in content)
    return ""


def is_leaked_sentinel(content: Any, sentinel: str = SENTINEL) -> bool:
    """Whether the visible text starts with ``sentinel`` and something follows it.

    A bare sentinel is the harness's own empty marker, not a leak; text that
    merely mentions the sentinel later on is an answer.
    """
    if not isinstance(sentinel, str) or not sentinel:
        return False
    text = visible_text(content).lstrip()
    return text.startswith(sentinel) and bool(text[len(sentinel):].strip())


_TEXT_PART_TYPES = ("text", "input_text", "output_text")


@dataclass(frozen=True)
class Placeholder:
    """One placeholder: its exact ``text``, the ``tool`` that writes it, and a public ``source``."""

    text: str
    tool: str
    source: str

    @property
    def is_phrase(self) -> bool:
        """Words a model can echo back in front of its own text (not ``.`` or a space)."""
        return len(self.text.strip()) > 1


_HERMES = "https://github.com/NousResearch/hermes-agent"
# Known empty-turn placeholders, each with who writes it and a public source.
PLACEHOLDERS: tuple[Placeholder, ...] = (
    Placeholder(DEFAULT_PLACEHOLDER, "handoff-codec", "docs/replay.md in this project"),
    Placeholder("[System: Empty message content sanitised to satisfy protocol]", "LiteLLM",
                "https://github.com/BerriAI/litellm/blob/main/litellm/litellm_core_utils/"
                "prompt_templates/factory.py"),
    Placeholder("(empty)", "Hermes Agent",
                f"{_HERMES}/blob/main/agent/anthropic_message_convert.py"),
    Placeholder("(no output)", "Hermes Agent", _HERMES),
    Placeholder("(empty message)", "Hermes Agent", _HERMES),
    Placeholder("[interrupt: no assistant output for this turn]", "Hermes Agent",
                f"{_HERMES}/blob/main/agent/agent_runtime_helpers_placeholders.py"),
    Placeholder("[response interrupted]", "Hermes Agent",
                f"{_HERMES}/blob/main/agent/agent_runtime_helpers_placeholders.py"),
    Placeholder(" ", "AutoGen", "https://github.com/microsoft/autogen/pull/6063"),
    Placeholder("(no content)", "Inspect AI",
                "https://github.com/UKGovernmentBEIS/inspect_ai/pull/1196"),
    Placeholder("[empty string]", "chatlas", "https://github.com/posit-dev/chatlas/pull/421"),
)
"""The empty-turn placeholders ``restore_empty`` knows, each with its writer and source."""


@dataclass(frozen=True)
class Restored:
    """Item ``index`` held only ``placeholder`` and is an empty turn again."""

    index: int
    placeholder: Placeholder


@dataclass(frozen=True)
class Leak:
    """Item ``index`` starts with ``placeholder`` followed by real text; it was left as is."""

    index: int
    placeholder: Placeholder
    text: str


@dataclass(frozen=True)
class RestoreEmptyReport:
    """What :func:`restore_empty_report` did: the ``items`` with placeholders emptied (the
    input list itself when nothing matched), each turn ``restored``, and the ``leaks`` found."""

    items: list[Any]
    restored: tuple[Restored, ...] = ()
    leaks: tuple[Leak, ...] = field(default=())


def _matching(text: str, known: Sequence[Placeholder]) -> Placeholder | None:
    for placeholder in known:
        if text == placeholder.text or (placeholder.text.strip()
                                        and text.strip() == placeholder.text):
            return placeholder
    return None


def _registry(extra: Iterable[str]) -> tuple[Placeholder, ...]:
    added = tuple(Placeholder(text, "caller", "restore_empty(extra=...)") for text in extra
                  if text and text not in {p.text for p in PLACEHOLDERS})
    return PLACEHOLDERS + added


def content_key(item: Mapping[str, Any]) -> str | None:
    """Which key holds the turn's visible content: ``content``, ``output`` or none."""
    if item.get("type") == "function_call_output":
        return "output"
    if isinstance(item.get("role"), str) and item.get("type") in (None, "message"):
        return "content"
    return None


def _emptied(value: Any, known: Sequence[Placeholder]) -> tuple[Any, Placeholder | None]:
    """``value`` with a whole-placeholder text emptied, and the placeholder found."""
    if isinstance(value, str):
        found = _matching(value, known)
        return ("" if found else value), found
    if isinstance(value, list) and value and all(
            isinstance(part, Mapping) and part.get("type") in _TEXT_PART_TYPES
            and isinstance(part.get("text"), str) for part in value):
        found = _matching("".join(part["text"] for part in value), known)
        if found:
            return [{**part, "text": ""} for part in value], found
    return value, None


def restore_empty_report(items: Sequence[Any], *, extra: Iterable[str] = ()) -> RestoreEmptyReport:
    """Restore every turn whose whole visible text is a known placeholder; report leaks.

    A message's ``content`` (or a tool output's ``output``) that is exactly a
    placeholder, give or take surrounding whitespace, becomes ``""``; text
    parts that together spell one become ``""`` parts. ``extra`` adds your own
    placeholders (a custom ``placeholder=`` given to ``replayable`` or
    ``sanitize``). Text that starts with a placeholder phrase and goes on is a
    :class:`Leak`: reported, never cut. Nothing in ``items`` is modified.
    """
    known = _registry(extra)
    phrases = [placeholder for placeholder in known if placeholder.is_phrase]
    out: list[Any] | None = None
    restored: list[Restored] = []
    leaks: list[Leak] = []
    for index, item in enumerate(items):
        key = content_key(item) if isinstance(item, Mapping) else None
        if key is None or key not in item:
            continue
        value, found = _emptied(item[key], known)
        if found is not None:
            if out is None:
                out = list(items)
            out[index] = {**item, key: value}
            restored.append(Restored(index, found))
            continue
        for placeholder in phrases:
            if is_leaked_sentinel(item[key], placeholder.text):
                leaks.append(Leak(index, placeholder, visible_text(item[key])[:120]))
                break
    if out is None:
        out = items if isinstance(items, list) else list(items)
    return RestoreEmptyReport(items=out, restored=tuple(restored), leaks=tuple(leaks))


def restore_empty(items: Sequence[Any], *, extra: Iterable[str] = ()) -> list[Any]:
    """``items`` with every whole-placeholder turn made empty again.

    Returns the very same list when nothing matches. See
    :func:`restore_empty_report` for what was restored and which leaks were
    found (``restore_empty`` never cuts a leak either).
    """
    return restore_empty_report(items, extra=extra).items


def __getattr__(name: str) -> Any:
    if name == "RestoreReport":  # the name until 0.2.0.dev0; removed in the next release
        warnings.warn("RestoreReport is now RestoreEmptyReport", DeprecationWarning,
                      stacklevel=2)
        return RestoreEmptyReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
