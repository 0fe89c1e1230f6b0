"""The common shape of a summary's items, which every framework module writes and reads.

Each framework module writes Responses-API-like items, plus keys of its own
(ADK's ``event``, Agent Framework's ``same_message``, PydanticAI's
``message``...). What each writes and each reads alike, whatever wrote it:

* a message: ``{"role": "user" | "assistant", "content": str | [parts], "name"?: str}``,
  parts ``input_text``/``output_text`` (``text``) and ``input_image``
  (``image_url``); content ``[]`` (no part) carries the role and name of a
  turn that only calls tools, before its calls;
* a call: ``{"type": "function_call", "call_id", "name", "arguments"}``,
  ``arguments`` a JSON object or its JSON text;
* a result: ``{"type": "function_call_output", "call_id", "output"}``,
  ``output`` a string, a list of content parts, or any other JSON value (a
  tool's typed result).

Adjacent ``function_call`` items, with the assistant message just before
them, are one model turn (a response's parallel calls); adjacent
``function_call_output`` items are one turn of results. A reader leaves out
the keys it has no place for and reports each (:class:`Notes`).
"""

from __future__ import annotations

import json
import mimetypes
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from .report import Omission

Item = dict[str, Any]

NAME_CARRIER: list[Any] = []  # the content of a message item that only carries a turn's name


class Notes:
    """The omissions of one reading, by item index."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self.found: list[Omission] = []

    def drop(self, index: int, field: str, reason: str) -> None:
        self.found.append(Omission(index, field, reason))

    def foreign(self, index: int, item: Mapping[str, Any], allowed: frozenset[str] | set[str],
                where: str = "") -> Item:
        """``item`` without the keys ``allowed`` lacks; each one left out is reported."""
        kept: Item = {}
        for key, value in item.items():
            if key in allowed:
                kept[key] = value
            else:
                self.drop(index, f"{where}{key}", f"{self.framework} has no place for it; "
                          "left out")
        return kept

    @property
    def omitted(self) -> tuple[Omission, ...]:
        return tuple(self.found)


def json_text(value: Any) -> str:
    """A JSON value as its JSON text (as a framework that holds text results writes it)."""
    return json.dumps(value, ensure_ascii=False)


def arguments_object(arguments: Any) -> dict[str, Any] | None:
    """A call's arguments as a JSON object: given as one, or as its JSON text; else None."""
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    return None


def is_name_carrier(item: Mapping[str, Any]) -> bool:
    """A message item with no content part: it carries a turn's role and name."""
    return item.get("type", "message") == "message" and "role" in item and (
        item.get("content") == NAME_CARRIER)


def media_type(url: str, image: bool) -> str:
    """The media type of media at ``url``: a ``data:`` URL's own, else the one its name
    says; else ``image/*`` for an image, ``application/octet-stream`` for a file."""
    if url.startswith("data:"):
        declared = url[5:].split(";", 1)[0].split(",", 1)[0]
        if declared:
            return declared
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0])
    if guessed and (guessed.startswith("image/") or not image):
        return guessed
    return "image/*" if image else "application/octet-stream"


def call_names(items: Sequence[Any]) -> dict[str, str]:
    """``call_id -> tool name`` of the ``function_call`` items in ``items``."""
    names: dict[str, str] = {}
    for item in items:
        if (isinstance(item, Mapping) and item.get("type") == "function_call"
                and isinstance(item.get("call_id"), str) and isinstance(item.get("name"), str)):
            names[item["call_id"]] = item["name"]
    return names


# ------------------------------------------------------------------ Responses API input items
def _responses_types() -> frozenset[str]:
    """Every ``type`` of a Responses API input item, as the installed ``openai`` declares them."""
    from openai.types.responses import ResponseInputItemParam

    found: set[str] = set()
    for member in typing.get_args(ResponseInputItemParam):
        annotation = typing.get_type_hints(member).get("type")
        for arg in typing.get_args(annotation):  # Required[Literal[...]] or Literal[...]
            found.update(a for a in typing.get_args(arg) if isinstance(a, str))
            if isinstance(arg, str):
                found.add(arg)
    return frozenset(found)


MESSAGE_KEYS = frozenset({"type", "role", "content", "id", "status"})
CALL_KEYS = frozenset({"type", "call_id", "name", "arguments", "id", "status"})
OUTPUT_KEYS = frozenset({"type", "call_id", "output", "id", "status"})
ROLES = frozenset({"user", "assistant", "system", "developer"})
STATUSES = frozenset({"in_progress", "completed", "incomplete"})
PART_KEYS = {
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text", "annotations", "logprobs"}),
    "input_image": frozenset({"type", "image_url", "file_id", "detail"}),
    "input_file": frozenset({"type", "file_id", "file_url", "file_data", "filename"}),
    "input_audio": frozenset({"type", "input_audio"}),
    "refusal": frozenset({"type", "refusal"}),
}
_NO_NAME = "Responses API input items hold no name; left out"


class ResponsesReader:
    """Any writer's items as Responses API input items (``to_input_list()``'s shape)."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        self.types = _responses_types()

    def parts(self, index: int, parts: list[Any], where: str) -> list[Any]:
        kept: list[Any] = []
        for at, part in enumerate(parts):
            kind = part.get("type") if isinstance(part, Mapping) else None
            allowed = PART_KEYS.get(kind) if isinstance(kind, str) else None
            if allowed is None or not isinstance(part, Mapping):
                self.notes.drop(index, f"{where}[{at}]", f"a {kind!r} content part has no "
                                "Responses API form; left out")
                continue
            part = self.notes.foreign(index, part, allowed, f"{where}[{at}].")
            if kind == "input_image":
                part.setdefault("detail", "auto")  # the API's default; its types require it
            kept.append(part)
        return kept

    def item(self, index: int, item: Mapping[str, Any]) -> Item | None:
        """The input item for ``item``, or None when it has none (reported)."""
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            return self._message(index, item)
        if kind == "function_call":
            out = self.notes.foreign(index, item, CALL_KEYS)
            if not isinstance(out.get("arguments"), str):
                out["arguments"] = json_text(out.get("arguments", {}))
            self._status(index, out)
            return out
        if kind == "function_call_output":
            out = self.notes.foreign(index, item, OUTPUT_KEYS)
            output = out.get("output")
            if isinstance(output, list) and all(isinstance(p, Mapping) and "type" in p
                                                for p in output):
                out["output"] = self.parts(index, output, "output")
            elif not isinstance(output, str):
                out["output"] = json_text(output)
                self.notes.drop(index, "output", "a JSON result; held as its JSON text (a "
                                "Responses API output is a string or content parts)")
            self._status(index, out)
            return out
        if isinstance(kind, str) and kind in self.types:
            return dict(item)
        self.notes.drop(index, f"type {kind!r}", "not a Responses API input item; left out")
        return None

    def _status(self, index: int, out: Item) -> None:
        if "status" in out and out["status"] not in STATUSES:
            self.notes.drop(index, "status", f"{out.pop('status')!r} is not a Responses API "
                            "item status; left out")

    def _message(self, index: int, item: Mapping[str, Any]) -> Item | None:
        name = "name" in item
        if name:
            self.notes.drop(index, "name", _NO_NAME)
        out = self.notes.foreign(index, {k: v for k, v in item.items() if k != "name"},
                                 MESSAGE_KEYS)
        if "type" not in out:  # id and status belong to an output message, typed "message"
            for key in ("id", "status"):
                if key in out:
                    self.notes.drop(index, key, "held by an output message item only; left out")
                    del out[key]
        if out.get("role") not in ROLES:
            self.notes.drop(index, "role", f"{out.get('role')!r} is no Responses API "
                            "message role; the message left out")
            return None
        content = out.get("content")
        if name and content == NAME_CARRIER:
            return None  # it carried the name only
        if isinstance(content, list):
            out["content"] = self.parts(index, content, "content")
        elif not isinstance(content, str):
            self.notes.drop(index, "content", "neither text nor content parts; left out")
            return None
        self._status(index, out)
        return out

    def items(self, items: Sequence[Any]) -> list[Item]:
        out: list[Item] = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                self.notes.drop(index, "item", "not a JSON object; left out")
                continue
            read = self.item(index, item)
            if read is not None:
                out.append(read)
        return out
