"""Bedrock's Converse API: ``messages`` of content blocks, ``toolUse``/``toolResult``, ``system``.

Rules it follows (each has a test citing its source):

* text must not be blank: empty and whitespace-only text blocks are refused;
* a conversation starts with a user message and alternates user and
  assistant;
* every ``toolUse`` is answered by a ``toolResult`` in the next user turn.

Images and documents carry raw ``bytes``, as boto3 takes them (the JSON
wire form is base64); ``s3://`` image URLs become ``s3Location`` sources.
The request is checked against ``types-boto3-bedrock-runtime``'s
``MessageTypeDef`` and ``SystemContentBlockTypeDef`` when it is installed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from ._checks import first_error
from ._dialect import Dialect, Unmappable, data_url, decoded, file_payload, guess_type

if TYPE_CHECKING:
    from types_boto3_bedrock_runtime.type_defs import MessageTypeDef, SystemContentBlockTypeDef

__all__ = ["Bedrock"]

IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif",
                 "image/webp": "webp"}
DOCUMENT_FORMATS = {"application/pdf": "pdf", "text/csv": "csv", "application/msword": "doc",
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
                        "docx",
                    "application/vnd.ms-excel": "xls",
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
                    "text/html": "html", "text/plain": "txt", "text/markdown": "md"}
# A document name may hold letters, digits, single spaces, hyphens, parentheses and brackets.
_NAME_BAD = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")


class Bedrock(Dialect):
    """Bedrock Converse content blocks."""

    target = "bedrock"
    provider = "Bedrock"
    sdk = "types_boto3_bedrock_runtime"
    schema = "types_boto3_bedrock_runtime.type_defs.MessageTypeDef"
    empty_tool_result = False
    message_shape = ("a Message is role and content only (https://docs.aws.amazon.com/bedrock/"
                     "latest/APIReference/API_runtime_Message.html)")

    def text(self, text: str) -> dict[str, Any]:
        return {"text": text}

    def image(self, url: str) -> dict[str, Any]:
        parsed = data_url(url)
        if parsed is not None:
            media_type, data = parsed
            source: dict[str, Any] = {"bytes": decoded(data)}
        elif url.startswith("s3://"):
            media_type, source = guess_type(url), {"s3Location": {"uri": url}}
        else:
            raise Unmappable("Bedrock takes images as bytes or an s3:// location, not a web URL")
        if media_type not in IMAGE_FORMATS:
            raise Unmappable(f"Bedrock takes png, jpeg, gif and webp images, not {media_type}")
        return {"image": {"format": IMAGE_FORMATS[media_type], "source": source}}

    def file(self, file: Mapping[str, Any]) -> dict[str, Any]:
        media_type, data, filename = file_payload(file, self.provider)
        if media_type not in DOCUMENT_FORMATS:
            raise Unmappable(f"Bedrock takes {', '.join(DOCUMENT_FORMATS.values())} documents, "
                             f"not {media_type or 'an unknown type'}")
        stem = filename.rsplit(".", 1)[0] if filename else ""
        name = " ".join(_NAME_BAD.sub("-", stem).split()) or "document"
        return {"document": {"format": DOCUMENT_FORMATS[media_type], "name": name,
                             "source": {"bytes": decoded(data)}}}

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"toolUse": {"toolUseId": call_id, "name": name, "input": args}}

    def tool_result(self, call_id: str, name: str, texts: list[str],
                    media: list[dict[str, Any]]) -> list[dict[str, Any]]:
        content = [self.text(text) for text in texts] + media
        return [{"toolResult": {"toolUseId": call_id, "content": content}}]

    def schema_errors(self, request: Mapping[str, Any]) -> list[tuple[int | None, str]]:
        errors: list[tuple[int | None, str]] = []
        for position, message in enumerate(request["messages"]):
            try:
                _messages_adapter().validate_python([message])
            except ValidationError as exc:
                errors.append((position, first_error(exc)))
            # A ContentBlock is a union: exactly one member is set.
            errors.extend((position, f"content block with keys {sorted(block)}: exactly one "
                           "member must be set") for block in message["content"]
                          if len(block) != 1)
        if "system" in request:
            try:
                _system_adapter().validate_python(request["system"])
            except ValidationError as exc:
                errors.append((None, f"system: {first_error(exc)}"))
        return errors


# The TypedDicts allow file objects as blob values, which need arbitrary types.
_CONFIG = ConfigDict(arbitrary_types_allowed=True)


@functools.lru_cache(maxsize=1)
def _messages_adapter() -> TypeAdapter[list[MessageTypeDef]]:
    # A TypedDict takes no config of its own, so the adapter is for a list of them.
    from types_boto3_bedrock_runtime.type_defs import MessageTypeDef

    return TypeAdapter(list[MessageTypeDef], config=_CONFIG)


@functools.lru_cache(maxsize=1)
def _system_adapter() -> TypeAdapter[list[SystemContentBlockTypeDef]]:
    from types_boto3_bedrock_runtime.type_defs import SystemContentBlockTypeDef

    return TypeAdapter(list[SystemContentBlockTypeDef], config=_CONFIG)
