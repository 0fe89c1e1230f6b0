"""What a provider dialect is: how it spells blocks, turns and the request, and its helpers.

:class:`Dialect` is the interface each provider module (``_anthropic``,
``_gemini``, ``_bedrock``) implements; the pipeline in ``_native`` is given a
dialect and never imports a provider module itself.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["Dialect", "Unmappable", "data_url", "decoded", "file_payload", "guess_type",
           "unwrapped"]

# RFC 2045 section 6.8: base64 may be wrapped over lines, and the decoder ignores the breaks.
_WRAPPING = re.compile(r"[\r\n\t ]+")


class Unmappable(Exception):
    """A part or value the target has no place for; the pipeline adds the item index."""


class Dialect:
    """How one provider spells content blocks, turns and the request; see the subclasses."""

    target: ClassVar[str]
    provider: ClassVar[str]
    sdk: ClassVar[str]  # the module whose types check the request
    schema: ClassVar[str]  # the name of that type, for reports
    assistant_role: ClassVar[str] = "assistant"
    tool_ids: ClassVar[bool] = True  # tool calls carry ids the API restricts to [a-zA-Z0-9_-]
    empty_tool_result: ClassVar[bool] = True  # a tool result may carry no text
    # The final assistant text may not end in whitespace (Anthropic's prefill rule).
    final_text_stripped: ClassVar[bool] = False
    # The provider's documented message shape, for the note when a name is dropped.
    message_shape: ClassVar[str] = ""

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


def unwrapped(data: str) -> str:
    """Base64 ``data`` with the line breaks (and spaces) of RFC 2045 wrapping taken out."""
    return _WRAPPING.sub("", data)


def data_url(url: str) -> tuple[str, str] | None:
    """``(media type, base64 data)`` of a ``data:<type>;base64,<data>`` URL, else None.

    Base64 wrapped over lines (RFC 2045) is valid: the data comes back on one line.
    """
    if not url.startswith("data:"):
        return None
    header, comma, data = url[5:].partition(",")
    media_type, _, encoding = header.partition(";")
    if not comma or encoding.lower() != "base64" or not media_type:
        raise Unmappable("a data URL needs a media type and base64 data")
    return media_type.lower(), unwrapped(data)


def decoded(data: str) -> bytes:
    """Base64 ``data`` (wrapped over lines or not) as bytes, or :class:`Unmappable`."""
    try:
        return base64.b64decode(unwrapped(data), validate=True)
    except (binascii.Error, ValueError):
        raise Unmappable("file or image data is not valid base64") from None


def guess_type(name: str) -> str:
    """The media type of a file name or URL path, or :class:`Unmappable`."""
    guessed, _ = mimetypes.guess_type(name.split("?", 1)[0], strict=False)
    if guessed is None:
        raise Unmappable(f"cannot tell the media type of {name[:80]!r}")
    return guessed


def file_payload(file: Mapping[str, Any], provider: str) -> tuple[str, str, str]:
    """``(media type, base64 data on one line, filename)`` of a Chat Completions file part."""
    data = file.get("file_data")
    filename = file.get("filename") or ""
    if not data:
        raise Unmappable(f"an uploaded file id means nothing to {provider}; "
                         "inline the file as file_data")
    parsed = data_url(data)
    if parsed is not None:
        return parsed[0], parsed[1], filename
    return guess_type(filename) if filename else "", unwrapped(data), filename
