"""A strict read refuses the typed records of openai-agents 0.6 to 0.17.0.

``N. function_call: {...}``, a word of ``ITEM_TYPE`` or ``item`` with no name
before a JSON object (``TYPED_HEAD`` of ``grammar/summary.lark``), is how those
releases wrote an item. It is no record of the current format: ``dumps``
writes every item, and a message of any role but the known four, as a JSON
record, and no message has such a role. So ``loads`` and ``decode`` with
``strict=True`` (both engines) refuse it at its word, with the line and
column, saying what it is and that a lenient read accepts it; the lenient read
gives the item, as before.

The control: any other word before a JSON object is a role. ``N. critic:
{...}`` is what openai-agents 0.20 and later write for a message of role
"critic" whose content is that text, and the strict read gives that message.
"""

from __future__ import annotations

from typing import Any

import pytest

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DecodeReason
from tests.format.read.summaries import Engine, summary

# Item types of grammar/summary.lark's ITEM_TYPE, and "item" (an item with no type).
WORDS = ["function_call", "function_call_output", "message", "reasoning", "computer_call",
         "mcp_call", "item"]
OBJECT = '{"call_id": "c1", "output": "42"}'
FIRST = {"role": "user", "content": "hi"}


def typed_item(word: str) -> dict[str, Any]:
    """The item a lenient read gives for ``N. word: OBJECT``."""
    item: dict[str, Any] = {"call_id": "c1", "output": "42"}
    if word != "item":
        item["type"] = word
    return item


@pytest.mark.parametrize("api", ["loads", "decode"])
@pytest.mark.parametrize("separator", [": ", ":"], ids=["colon-space", "colon"])
@pytest.mark.parametrize("word", WORDS)
def test_strict_refuses_a_typed_record_at_its_word(word: str, separator: str, api: str,
                                                   engine: Engine) -> None:
    record = f"2. {word}{separator}{OBJECT}"
    text = summary("1. user: hi", record, "3. assistant: ok")
    with pytest.raises(DecodeError) as refused:
        getattr(handoff_codec, api)(text, strict=True, engine=engine)
    error = refused.value
    assert error.reason is DecodeReason.SYNTAX
    assert (error.lineno, error.colno) == (4, 4)
    assert error.pos == text.index(record) + 3
    assert error.msg.startswith(f"a typed record '{word}: {{...}}'")
    assert "openai-agents 0.6 to 0.17.0" in error.msg
    assert "lenient read" in error.msg


@pytest.mark.parametrize("word", WORDS)
def test_strict_refuses_it_as_the_first_record_and_lenient_reads_the_item(
        word: str, engine: Engine) -> None:
    text = summary(f"1. {word}: {OBJECT}", "2. assistant: ok")
    with pytest.raises(DecodeError, match=r"^a typed record") as refused:
        handoff_codec.decode(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (3, 4)
    items = [typed_item(word), {"role": "assistant", "content": "ok"}]
    assert handoff_codec.loads(text, engine=engine) == items
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == items
    assert [recovery.kind for recovery in decoded.recoveries] == [
        handoff_codec.RecoveryKind.TYPED_RECORD]


@pytest.mark.parametrize("word", ["function_call", "item"])
def test_strict_refuses_it_as_the_only_record(word: str, engine: Engine) -> None:
    """The usual handoff, one record on one line, takes the same care."""
    text = summary(f"1. {word}: {OBJECT}")
    with pytest.raises(DecodeError, match=r"^a typed record") as refused:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (3, 4)
    assert handoff_codec.loads(text, engine=engine) == [typed_item(word)]


def test_the_first_of_it_and_a_raw_line_break_is_said(engine: Engine) -> None:
    """A line break inside an earlier record is refused first, and a typed record on an
    earlier line than one."""
    typed = f"2. function_call: {OBJECT}"
    text = summary("1. user: a\rb", typed)
    with pytest.raises(DecodeError, match=r"^raw carriage return") as refused:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (3, 11)
    text = summary("1. user: hi", typed, "3. user: a\rb")
    with pytest.raises(DecodeError, match=r"^a typed record") as refused:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (4, 4)


@pytest.mark.parametrize(("record", "item"), [
    # A custom role before a JSON object: what openai-agents 0.20+ writes for this message.
    (f"2. critic: {OBJECT}", {"role": "critic", "content": OBJECT}),
    # A word that is no item type (they are lower case).
    (f"2. Function_call: {OBJECT}", {"role": "Function_call", "content": OBJECT}),
    # A name: no typed record has one.
    (f"2. function_call (bot): {OBJECT}",
     {"role": "function_call", "name": "bot", "content": OBJECT}),
    # Content that does not start with "{".
    ("2. function_call: done", {"role": "function_call", "content": "done"}),
    (f"2. function_call:  {OBJECT}", {"role": "function_call", "content": " " + OBJECT}),
], ids=["custom-role", "capitalised", "named", "text", "two-spaces"])
def test_any_other_role_before_json_is_a_message(record: str, item: dict[str, Any],
                                                 engine: Engine) -> None:
    text = summary("1. user: hi", record)
    assert handoff_codec.loads(text, strict=True, engine=engine) == [FIRST, item]
    decoded = handoff_codec.decode(text, strict=True, engine=engine)
    assert decoded.items == [FIRST, item]
    assert decoded.format is handoff_codec.Format.CURRENT


@pytest.mark.parametrize("role", ["function_call", "item", "critic"])
def test_dumps_writes_such_a_message_as_a_json_record(role: str, engine: Engine) -> None:
    """The writer never writes the refused line: a message whose role is an item type
    (or any role but the known four) is a JSON record, read back strictly."""
    items = [FIRST, {"role": role, "content": OBJECT}]
    text = handoff_codec.dumps(items)
    assert f"2. {role}:" not in text
    assert handoff_codec.loads(text, strict=True, engine=engine) == items
