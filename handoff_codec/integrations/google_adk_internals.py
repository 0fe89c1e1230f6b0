"""The private Google ADK names the package uses, checked when this module is imported.

ADK has no public way to tell which contents of a model request render
another agent's events. ADK's request builder
(``google/adk/flows/llm_flows/context/_contents.py``) renders each other
agent's event it puts in a request with ``_present_other_agent_message``
(``google/adk/flows/llm_flows/context/_fencing.py``), called by that name
from the builder's module. This module gives the builder's module a wrapper
of that function that returns ADK's rendering unchanged except for its type:
a :class:`Rendered` content, which records the event it was rendered from
(:func:`provenance`) and what ADK rendered (:func:`unedited` tells whether
the content still holds it: a plugin may have changed it since). Only ADK's
builder makes these, and a copy of one made for the request keeps the
record, so
:mod:`handoff_codec.integrations.google_adk` knows which contents of a
request are ADK's renderings and of which events, never by their text.

ADK's framing (its preamble, its quote markers and what it writes in place
of a quote marker found in relayed text) is read from what the renderer
writes for two one-line probes. All of this is checked here, at import, by
what ADK has, not by its version number: an ADK without the function or the
builder's use of it, or whose rendering has another shape, raises
ImportError naming the versions tested (:data:`TESTED`, the range the
``google-adk`` extra pins).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._extras import missing

try:
    import google.adk
    from google.adk.events import Event
    from google.genai import types
except ImportError as exc:  # depends on the install
    raise missing("google_adk", "Google ADK (the 'google.adk' package, from google-adk)",
                  "google-adk", exc) from exc
from pydantic import BaseModel, PrivateAttr

__all__ = ["TESTED", "Framing", "Provenance", "Rendered", "framing", "provenance", "render",
           "unedited"]

TESTED = "google-adk>=2.13,<2.14"
"""The google-adk versions this module was tested with (the extra's pin)."""

_FUNCTION = "google.adk.flows.llm_flows.context._fencing._present_other_agent_message"
_BUILDER = "google.adk.flows.llm_flows.context._contents"
_NAME = "_present_other_agent_message"


def _unsupported(what: str, name: str = _FUNCTION) -> ImportError:
    return ImportError(
        f"handoff_codec.integrations.google_adk needs {name} {what} "
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


# ------------------------------------------------------------------ where a rendering came from
# The fields of a part that hold a model of their own (media, code) in ADK's renderings.
_NESTED = ("inline_data", "file_data", "executable_code", "code_execution_result",
           "video_metadata", "function_call", "function_response")


def _shape(content: types.Content) -> Any:
    """What ``content`` holds, to compare with a later state of it.

    The role, and each part's fields and those of the models in them (media,
    code), as copies of their ``__dict__``: built and compared in C, the
    strings and bytes held, not copied, and an unchanged one compared by
    identity. A field of a part set in place, a part added, deleted or
    replaced by one with other fields, all change it.
    """
    parts = content.parts
    if parts is None:
        return content.role, None
    shape = []
    for part in parts:
        fields = part.__dict__
        shape.append(dict(fields))
        for name in _NESTED:
            inner = fields.get(name)
            if isinstance(inner, BaseModel):
                shape.append(dict(inner.__dict__))
    return content.role, shape


class Provenance:
    """The event ADK rendered a :class:`Rendered` content from, and what ADK rendered.

    Copies of the content share it (it is never copied).
    """

    __slots__ = ("event", "include_thoughts", "shape")

    def __init__(self, event: Event, include_thoughts: bool, shape: Any) -> None:
        self.event = event
        self.include_thoughts = include_thoughts
        self.shape = shape

    def __copy__(self) -> Provenance:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Provenance:
        return self


class Rendered(types.Content):
    """A content ADK's request builder rendered from another agent's event.

    The same fields as ADK's rendering, equal to a ``types.Content`` with
    them, and sent as one; it also holds, where no client can write it, the
    event it was rendered from (:func:`provenance`). ``model_copy`` keeps it.
    """

    _provenance: Provenance | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, types.Content):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]


def provenance(content: object) -> Provenance | None:
    """The record of the event ADK rendered ``content`` from; None for any other content."""
    if type(content) is not Rendered:
        return None
    found: Provenance | None = content._provenance
    return found


def unedited(content: types.Content) -> bool:
    """Whether ``content``, a :class:`Rendered` content, still holds what ADK rendered.

    False once anything changed it after ADK's builder made it: a part's field
    set in place, a part added or deleted, or a copy with other fields.
    """
    record = provenance(content)
    return record is not None and _shape(content) == record.shape


def _with_provenance(renderer: Callable[..., Event | None]) -> Callable[..., Event | None]:
    """ADK's renderer, whose renderings are :class:`Rendered` contents that record their event."""

    def present(event: Event, *, include_thoughts: bool = False) -> Event | None:
        rendered = renderer(event, include_thoughts=include_thoughts)
        if rendered is not None and rendered is not event and rendered.content is not None:
            content = Rendered.model_construct(
                _fields_set=rendered.content.model_fields_set, **dict(rendered.content))
            content._provenance = Provenance(event, include_thoughts, _shape(content))
            rendered.content = content
        return rendered

    present.__wrapped__ = renderer  # type: ignore[attr-defined]
    present.handoff_codec_renderer = renderer  # type: ignore[attr-defined]
    return present


def _install() -> None:
    """Give ADK's request builder the renderer that records provenance (once per process)."""
    try:
        from google.adk.flows.llm_flows.context import _contents
    except ImportError as exc:  # pragma: no cover - an ADK other than the versions tested
        raise _unsupported("(its module is missing)", _BUILDER) from exc
    current = getattr(_contents, _NAME, None)
    original = getattr(current, "handoff_codec_renderer", current)
    renderer = _renderer
    assert renderer is not None  # checked above, when the module's names were read
    if id(original) != id(renderer):  # (an identity test: mypy would narrow to Any)
        raise _unsupported("to render other agents' events with "
                           "_fencing._present_other_agent_message, as the versions tested do",
                           _BUILDER)
    wrapped: Callable[..., Event | None] = _with_provenance(renderer)
    setattr(_contents, _NAME, wrapped)


_install()
