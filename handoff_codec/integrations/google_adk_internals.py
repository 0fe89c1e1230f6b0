"""The one private Google ADK name the package uses, checked when this module is imported.

ADK has no public way to tell which contents of a model request render
another agent's events. :mod:`handoff_codec.integrations.google_adk` asks
ADK's own renderer, ``_present_other_agent_message`` in
``google/adk/flows/llm_flows/context/_fencing.py``, what each event became,
and reads ADK's framing (its preamble, its quote markers and what it writes
in place of a quote marker found in relayed text) from what the renderer
writes for two one-line probes. Both are checked here, at import, by
what ADK has, not by its version number: an ADK without the function, or
whose rendering has another shape, raises ImportError naming the versions
tested (:data:`TESTED`, the range the ``google-adk`` extra pins).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import google.adk
from google.adk.events import Event
from google.genai import types

__all__ = ["TESTED", "Framing", "framing", "render"]

TESTED = "google-adk>=2.13,<2.14"
"""The google-adk versions this module was tested with (the extra's pin)."""

_FUNCTION = "google.adk.flows.llm_flows.context._fencing._present_other_agent_message"


def _unsupported(what: str) -> ImportError:
    return ImportError(
        f"handoff_codec.integrations.google_adk needs {_FUNCTION} {what} "
        f"(google-adk {google.adk.__version__} is installed; tested with {TESTED}). "
        "Install a tested version: pip install 'handoff-codec[google-adk]'")


try:
    from google.adk.flows.llm_flows.context import _fencing
except ImportError as exc:  # pragma: no cover - an ADK other than the versions tested
    raise _unsupported("(its module is missing)") from exc

_renderer: Callable[..., Event | None] | None = getattr(
    _fencing, "_present_other_agent_message", None)
if _renderer is None:
    raise _unsupported("(this google-adk does not have it)")


def render(event: Event, *, include_thoughts: bool = False) -> Event | None:
    """ADK's rendering of another agent's ``event``: a user-role event, or None."""
    assert _renderer is not None
    return _renderer(event, include_thoughts=include_thoughts)


@dataclass(frozen=True)
class Framing:
    """ADK's framing of other agents' content: its preamble and its quote markers."""

    preamble: str
    begin: str
    end: str
    elided: str
    """What ADK writes in relayed text in place of either quote marker."""

    def elide(self, text: str) -> str:
        """``text`` with each quote marker replaced as ADK replaces it in what it relays."""
        if self.begin not in text and self.end not in text:
            return text
        return text.replace(self.begin, self.elided).replace(self.end, self.elided)


def _rendered_lines(text: str) -> tuple[str | None, list[str]]:
    """ADK's preamble and the lines of its rendering of another agent's ``text``."""
    probe = Event(author="a", content=types.Content(role="model", parts=[types.Part(text=text)]))
    try:
        rendered = render(probe)
    except TypeError as exc:  # another signature
        raise _unsupported(f"with the signature tested ({exc})") from exc
    if rendered is None or rendered.content is None or rendered.content.role != "user":
        return None, []
    texts = [part.text for part in rendered.content.parts or ()]
    lines = (texts[1] or "").split("\n") if len(texts) == 2 else []
    return (texts[0] if texts else None), lines


def _read_framing() -> Framing:
    """The framing ADK writes around another agent's one-line text ``x``.

    A second probe, ``x<end marker>y``, shows what ADK writes in place of a
    quote marker inside relayed text.
    """
    preamble, lines = _rendered_lines("x")
    if (not isinstance(preamble, str) or not preamble or "\n" in preamble
            or len(lines) != 4 or lines[0] != "[a] said:" or lines[2] != "x"
            or not lines[1] or not lines[3]):
        raise _unsupported("rendering another agent's text as the versions tested do "
                           "(a preamble part, then '[agent] said:' and the text between "
                           "two quote markers)")
    begin, end = lines[1], lines[3]
    _, marked = _rendered_lines(f"x{end}y{begin}z")
    inner = marked[2] if len(marked) == 4 else ""
    elided = inner[1:].partition("y")[0]
    if (not elided or begin in elided or end in elided
            or inner != f"x{elided}y{elided}z"):
        raise _unsupported("eliding a quote marker inside relayed text as the versions "
                           "tested do")
    return Framing(preamble, begin, end, elided)


framing = _read_framing()
"""ADK's framing, as this ADK's renderer writes it."""
