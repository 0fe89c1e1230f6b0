"""The grammar's ITEM_TYPE (summary.lark) and CONTENT_PART_TYPE (legacy.lark) are openai's words.

Derived here from the types of the installed openai package: ITEM_TYPE is
the ``type`` of every member of ``ResponseInputItemParam`` (what a
`type: {json}` record may be), CONTENT_PART_TYPE the ``type`` of every
content part of the messages among them, and input audio (what a JSON array
of content parts is made of).
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from typing_extensions import get_type_hints, is_typeddict

from handoff_codec.format import grammar


def _literals(annotation: Any) -> set[str]:
    """Every string of the Literal types inside ``annotation``."""
    found: set[str] = set()
    pending = [annotation]
    while pending:
        kind = pending.pop()
        if get_origin(kind) is Literal:
            found.update(get_args(kind))
        elif get_origin(kind) is not None:  # Union, Required, List, Iterable ...
            pending.extend(get_args(kind))
    return found


def _typed_dicts(annotation: Any) -> list[Any]:
    """Every TypedDict inside ``annotation``."""
    found, pending = [], [annotation]
    while pending:
        kind = pending.pop()
        if is_typeddict(kind):
            found.append(kind)
        elif get_origin(kind) is not None:
            pending.extend(get_args(kind))
    return found


def test_item_types_are_those_of_openais_input_items() -> None:
    from openai.types.responses import ResponseInputItemParam

    types: set[str] = set()
    for item in _typed_dicts(ResponseInputItemParam):
        types |= _literals(get_type_hints(item).get("type"))
    assert len(types) >= 25 and {"function_call", "message", "reasoning"} <= types
    assert set(grammar.alternatives("ITEM_TYPE", "legacy")) == types


def test_content_part_types_are_those_of_openais_message_content() -> None:
    from openai.types.responses import ResponseInputAudioParam, ResponseInputItemParam

    types = _literals(get_type_hints(ResponseInputAudioParam)["type"])
    messages = [item for item in _typed_dicts(ResponseInputItemParam)
                if {"role", "content"} <= set(get_type_hints(item))]
    assert len(messages) == 3  # the easy input message, the input message, the output message
    for message in messages:
        for part in _typed_dicts(get_type_hints(message)["content"]):
            types |= _literals(get_type_hints(part)["type"])
    assert set(grammar.alternatives("CONTENT_PART_TYPE", "legacy")) == types == {
        "input_text", "input_image", "input_file", "input_audio", "output_text", "refusal"}


def test_no_item_type_is_a_known_role() -> None:
    assert not set(grammar.alternatives("ITEM_TYPE", "legacy")) & set(
        grammar.alternatives("KNOWN_ROLE"))
