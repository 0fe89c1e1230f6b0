"""The Anthropic Messages API: content blocks, ``tool_use``/``tool_result``, top-level ``system``.

Rules it follows (each has a test citing its source):

* text blocks must be non-empty and contain non-whitespace text;
* every ``tool_use`` is answered by a ``tool_result`` in the next user turn,
  and the tool results come first in that turn;
* the system prompt is the top-level ``system`` parameter, not a turn;
* a final assistant turn (a prefill) may not end in whitespace: the API
  answers "final assistant content cannot end with trailing whitespace"
  (https://github.com/tailcallhq/forgecode/issues/1872); it is
  stripped, and reported as a repair.

The request is checked against ``anthropic.types.MessageParam`` (and
``TextBlockParam`` for ``system``) when the ``anthropic`` package is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from ._checks import drain, first_error
from ._dialect import Dialect, Unmappable, data_url, decoded, file_payload

if TYPE_CHECKING:
    from anthropic.types import MessageParam, TextBlockParam

__all__ = ["Anthropic"]

IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


class Anthropic(Dialect):
    """Anthropic Messages API blocks."""

    target = "anthropic"
    provider = "Anthropic"
    sdk = "anthropic"
    schema = "anthropic.types.MessageParam"
    final_text_stripped = True
    message_shape = ("a message is role and content only "
                     "(https://docs.anthropic.com/en/api/messages)")

    def text(self, text: str) -> dict[str, Any]:
        return {"type": "text", "text": text}

    def image(self, url: str) -> dict[str, Any]:
        parsed = data_url(url)
        if parsed is None:
            if not url.startswith(("https://", "http://")):
                raise Unmappable(f"Anthropic takes images as base64 data or an http(s) URL, "
                                 f"not {url[:40]!r}")
            return {"type": "image", "source": {"type": "url", "url": url}}
        media_type, data = parsed
        if media_type not in IMAGE_TYPES:
            raise Unmappable(f"Anthropic takes {', '.join(IMAGE_TYPES)} images, not {media_type}")
        return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                            "data": data}}

    def file(self, file: Mapping[str, Any]) -> dict[str, Any]:
        media_type, data, filename = file_payload(file, self.provider)
        if media_type == "application/pdf":
            source: dict[str, Any] = {"type": "base64", "media_type": media_type, "data": data}
        elif media_type == "text/plain":
            try:
                text = decoded(data).decode("utf-8")
            except (Unmappable, UnicodeDecodeError):
                raise Unmappable("a text/plain file must be base64 of UTF-8 text") from None
            source = {"type": "text", "media_type": media_type, "data": text}
        else:
            raise Unmappable(f"Anthropic documents are PDF or plain text, not "
                             f"{media_type or 'an unknown type'}")
        block: dict[str, Any] = {"type": "document", "source": source}
        if filename:
            block["title"] = filename
        return block

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}

    def tool_result(self, call_id: str, name: str, texts: list[str],
                    media: list[dict[str, Any]]) -> list[dict[str, Any]]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
        content = [self.text(text) for text in texts] + media
        if content:
            block["content"] = content
        return [block]

    def schema_errors(self, request: Mapping[str, Any]) -> list[tuple[int | None, str]]:
        errors: list[tuple[int | None, str]] = []
        for position, message in enumerate(request["messages"]):
            error = _error(_message_adapter(), message)
            if error:
                errors.append((position, error))
        if "system" in request:
            error = _error(_system_adapter(), request["system"])
            if error:
                errors.append((None, f"system: {error}"))
        return errors


def _error(adapter: TypeAdapter[Any], value: Any) -> str:
    try:
        drain(adapter.validate_python(value))
    except ValidationError as exc:
        return first_error(exc)
    return ""


@functools.lru_cache(maxsize=1)
def _message_adapter() -> TypeAdapter[MessageParam]:
    from anthropic.types import MessageParam

    return TypeAdapter(MessageParam)


@functools.lru_cache(maxsize=1)
def _system_adapter() -> TypeAdapter[list[TextBlockParam]]:
    from anthropic.types import TextBlockParam

    return TypeAdapter(list[TextBlockParam])
