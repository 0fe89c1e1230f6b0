"""The Gemini API: ``contents`` of ``user``/``model`` turns, parts, and ``system_instruction``.

Rules it follows (each has a test citing its source):

* a turn's ``parts`` must not be empty, and a text part must not be ``""``;
* a tool call is a ``functionCall`` part in a ``model`` turn, answered by a
  ``functionResponse`` part (with the function's name and a ``response``
  object) in the next ``user`` turn;
* the system prompt is ``system_instruction``, not a turn.

Images, audio and files become ``inlineData`` (base64) or ``fileData`` (a
URL) parts. The request is checked against ``google.genai.types.Content``
when the ``google-genai`` package is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from ._checks import first_error
from ._dialect import Dialect, Unmappable, data_url, file_payload, guess_type

if TYPE_CHECKING:
    from google.genai.types import Content

__all__ = ["Gemini"]

AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mp3"}


class Gemini(Dialect):
    """Gemini ``contents`` parts."""

    target = "gemini"
    provider = "Gemini"
    sdk = "google.genai"
    schema = "google.genai.types.Content"
    assistant_role = "model"
    tool_ids = False  # Gemini pairs a response with its call by name and order
    message_shape = ("a Content is role and parts only "
                     "(https://ai.google.dev/api/caching#Content)")

    def rejects(self, text: str) -> bool:
        return text == ""

    def text(self, text: str) -> dict[str, Any]:
        return {"text": text}

    def image(self, url: str) -> dict[str, Any]:
        parsed = data_url(url)
        if parsed is not None:
            return {"inlineData": {"mimeType": parsed[0], "data": parsed[1]}}
        if not url.startswith(("https://", "http://", "gs://")):
            raise Unmappable(f"Gemini takes images as base64 data or a URL, not {url[:40]!r}")
        return {"fileData": {"mimeType": guess_type(url), "fileUri": url}}

    def audio(self, data: str, audio_format: str) -> dict[str, Any]:
        if audio_format not in AUDIO_TYPES:
            raise Unmappable(f"unknown audio format {audio_format!r}")
        return {"inlineData": {"mimeType": AUDIO_TYPES[audio_format], "data": data}}

    def file(self, file: Mapping[str, Any]) -> dict[str, Any]:
        media_type, data, _ = file_payload(file, self.provider)
        if not media_type:
            raise Unmappable("a file without a media type or a file name to tell it by")
        return {"inlineData": {"mimeType": media_type, "data": data}}

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"functionCall": {"name": name, "args": args}}

    def tool_result(self, call_id: str, name: str, texts: list[str],
                    media: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # "output" is the key the google-genai docs give for a function's result.
        response = {"functionResponse": {"name": name, "response": {"output": "".join(texts)}}}
        return [response, *media]

    def message(self, role: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": role, "parts": blocks}

    def request(self, system: list[str], messages: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"contents": messages}
        if system:
            body["system_instruction"] = {"parts": [self.text(text) for text in system]}
        return body

    def schema_errors(self, request: Mapping[str, Any]) -> list[tuple[int | None, str]]:
        errors: list[tuple[int | None, str]] = []
        checked: list[tuple[int | None, Any]] = list(enumerate(request["contents"]))
        if "system_instruction" in request:
            checked.append((None, request["system_instruction"]))
        for position, content in checked:
            try:
                _adapter().validate_python(content)
            except ValidationError as exc:
                errors.append((position, first_error(exc)))
        return errors


@functools.lru_cache(maxsize=1)
def _adapter() -> TypeAdapter[Content]:
    from google.genai.types import Content

    return TypeAdapter(Content)
