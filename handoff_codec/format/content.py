"""Message content: the text that may hold a summary, and the list content legacy writers wrote.

openai-agents writes a summary as ``{"role": "assistant", "content": TEXT}``.
The openai-agents-js writer in development (``handoffHistory.ts``) writes the
same text as ``"content": [{"type": "output_text", "text": TEXT}]``, and
openai-agents 0.24 gives a resumed run's assistant messages that shape too.

openai-agents 0.6 to 0.17.0 wrote list content as a JSON array after the
colon (``N. user: [{"type": "input_text", ...}]``), so content that starts
with "[" may be a list (:func:`lists_read`, :func:`legacy_list`); both
readers apply this rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .read.json_record import json_value

__all__ = ["CONTENT_PART_TYPES", "LIST_CONTENT", "LIST_INFERRED", "NOT_A_LIST",
           "TEXT_ARRAY", "as_text_message", "legacy_list", "lists_read", "summary_text"]

# The keys an output_text part may carry besides its text. Annotations and
# logprobs must be empty: a part that holds them is model output, not a summary.
_PART_KEYS = frozenset({"type", "text", "annotations", "logprobs"})


def summary_text(content: Any) -> str | None:
    """The text ``content`` holds if it can be a summary's content, else None.

    A str is returned as it is. A non-empty list whose every part is an
    ``output_text`` part (a mapping with a str ``text``, no other keys than
    ``type``, ``text`` and empty ``annotations`` / ``logprobs``) gives its texts
    joined with no separator, as the openai-agents-js writer joins them. Any
    other content (``input_text`` parts, images, refusals, None) gives None.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)) or not content:
        return None
    texts: list[str] = []
    for part in content:
        if (not isinstance(part, Mapping) or part.get("type") != "output_text"
                or not isinstance(part.get("text"), str) or not set(part) <= _PART_KEYS
                or part.get("annotations") or part.get("logprobs")):
            return None
        texts.append(part["text"])
    return "".join(texts)


def as_text_message(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """``item`` with list content of output_text parts given as its text; else ``item`` itself.

    Only the content changes (the role and every other key stay), so
    ``Codec.is_summary`` can then decide on it as on any message.
    """
    content = item.get("content")
    if isinstance(content, str):
        return item
    text = summary_text(content)
    return item if text is None else {**item, "content": text}


# The ``type`` of every content part a message without ``type`` can hold: the
# parts of the openai package's ``EasyInputMessage.content``
# (``ResponseInputContent``) and ``ResponseInputAudio``. Output parts
# (``output_text``, ``refusal``) are not among them: they belong to an output
# message, which has an ``id`` that the old writer did not keep, and as the
# content of a plain turn neither the Responses API's input types nor the Agents
# SDK's Chat Completions converter accept them. A constant, so that reading a
# legacy summary does not import openai's types (over a second of start-up);
# tests/format/test_lenient_reader.py derives it from those types.
CONTENT_PART_TYPES = frozenset({"input_audio", "input_file", "input_image", "input_text"})

# What content that starts with "[" is, read as legacy list content (legacy_list).
LIST_CONTENT, LIST_INFERRED, TEXT_ARRAY, NOT_A_LIST = range(4)


def lists_read(*, old_writer: bool, json_record: bool, empty_turn: bool) -> bool:
    """Whether a summary's content that starts with "[" may be legacy list content.

    Yes with a sign of the 0.6 to 0.17.0 writer (``old_writer``: content
    spilled over lines, a `type: {json}` record). No with a sign of a later
    writer, who wrote lists as JSON records: a JSON record, or an empty
    `N. role: ` turn. Without any sign, yes (:func:`legacy_list` then reads
    only an array of content parts).
    """
    return old_writer or not (json_record or empty_turn)


def legacy_list(content: str, *, old_writer: bool) -> tuple[int, list[Any] | None]:
    """What ``content`` (starting with "[", in a summary whose lists are read) is, and
    the list it is read as (None: it stays text).

    With ``old_writer`` any JSON array is list content (``LIST_CONTENT``);
    without, only a non-empty array of Responses input content parts
    (``LIST_INFERRED``), and any other array stays text (``TEXT_ARRAY``).
    ``NOT_A_LIST``: no JSON array, text.
    """
    value = json_value(content)
    if not isinstance(value, list):
        return NOT_A_LIST, None
    if old_writer:
        return LIST_CONTENT, value
    if value and all(isinstance(part, dict) and isinstance(part.get("type"), str)
                     and part["type"] in CONTENT_PART_TYPES for part in value):
        return LIST_INFERRED, value
    return TEXT_ARRAY, None
