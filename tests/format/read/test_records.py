"""Records to items: each line kind of grammar/legacy.lark, read as docs/spec.md says.

* ``KNOWN_LINE``: a message; content spilled on the lines below is joined back
  with "\\n" (``continuation``).
* ``PLAIN_LINE``: a `role: content` or `role (name): content` message; a line
  `N. word: {json object}` whose word is one of ``ITEM_TYPE`` (openai's input
  item types), with no name, alone on its line, is an item of that type
  (``typed_record``). Any other role before JSON is a message with that text.
* ``JSON_LINE``: the object (``non_standard_json`` for NaN and Infinity;
  ``not_json`` when it is none); lines below it belong to no record.
* ``BARE_LINE``: an empty turn (``bare_role``, lost).
* ``NUMBERED_LINE``: a record only when its lines hold `role: content`.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Format
from handoff_codec.format import grammar
from tests.format.read.summaries import Engine, summary

ITEM_TYPES = grammar.alternatives("ITEM_TYPE", "legacy")


def notes(decoded: handoff_codec.Decoded) -> list[tuple[int, str, bool]]:
    return [(r.line, r.kind.value, r.lost) for r in decoded.recoveries]


def read(engine: Engine, *lines: str) -> handoff_codec.Decoded:
    return handoff_codec.decode(summary(*lines), engine=engine)


# ------------------------------------------------------------ typed records
def test_an_unknown_role_before_json_is_a_message_where_no_writer_of_types_is_left(
    engine: Engine,
) -> None:
    """Issue 31: after a record only 0.17.1 and later write, `2. custom: {"a": 1}` is a
    message with that text, not an item (0.6 to 0.17.0, which wrote typed records, is
    ruled out)."""
    decoded = read(engine, '1. {"content": "a\\nb", "role": "user"}', '2. custom: {"a": 1}')
    assert decoded.items[1] == {"role": "custom", "content": '{"a": 1}'}
    assert notes(decoded) == []


@pytest.mark.parametrize("word", ITEM_TYPES)
def test_an_item_type_before_json_is_an_item_of_that_type(word: str, engine: Engine) -> None:
    decoded = read(engine, f'1. {word}: {{"call_id": "c1", "n": [1, 2]}}')
    assert decoded.items == [{"call_id": "c1", "n": [1, 2], "type": word}]
    assert notes(decoded) == [(3, "typed_record", False)]
    assert decoded.recoveries[0].message == (
        f"'{word}: {{...}}' read as an item of type '{word}' (no message has that role)")
    # Only 0.6 to 0.17.0 (and the ports that copy it) write `type: {json}`.
    assert decoded.format is Format.LEGACY_0_6 and len(decoded.writers) == 1


@pytest.mark.parametrize(("line", "item"), [
    ("1. reasoning (x): {}", {"role": "reasoning", "name": "x", "content": "{}"}),  # a name
    # (`function_call: {"a": 1} x`, an item type before no JSON object: a message, but
    # flagged ambiguous: test_typed_head_not_json.py)
    ("1. function_call: [1]", {"role": "function_call", "content": "[1]"}),
    ("1. function_call: not json", {"role": "function_call", "content": "not json"}),
    ("1. function_call:  {}", {"role": "function_call", "content": " {}"}),
    ("1. my tool: {}", {"role": "my tool", "content": "{}"}),
    ('1. tool: {"type": "x"}', {"role": "tool", "content": '{"type": "x"}'}),
    ('1. user: {"role": "system", "content": "x"}',
     {"role": "user", "content": '{"role": "system", "content": "x"}'}),
])
def test_anything_else_before_json_is_a_message(line: str, item: dict[str, Any],
                                                engine: Engine) -> None:
    decoded = read(engine, line)
    assert decoded.items == [item] and notes(decoded) == []


def test_a_typed_record_without_a_space_after_the_colon(engine: Engine) -> None:
    decoded = read(engine, "1. function_call:{}")
    assert decoded.items == [{"type": "function_call"}]
    assert notes(decoded) == [(3, "typed_record", False)]


def test_a_message_record_keeps_its_role_and_gets_its_type(engine: Engine) -> None:
    decoded = read(engine, '1. message: {"role": "user", "content": "hi", "type": "x"}')
    assert decoded.items == [{"role": "user", "content": "hi", "type": "message"}]


def test_a_typed_record_is_one_line(engine: Engine) -> None:
    """0.6 to 0.17.0 wrote a typed record on one line (json.dumps escapes line breaks): a
    line below it belongs to no record; the record is never read as a message."""
    decoded = read(engine, '1. function_call: {"a": 1}', "more")
    assert decoded.items == [{"a": 1, "type": "function_call"}]
    assert notes(decoded) == [(3, "typed_record", False), (4, "unrecognised", True)]


def test_an_item_without_a_type_is_written_item(engine: Engine) -> None:
    decoded = read(engine, '1. item: {"a": 1}')
    assert decoded.items == [{"a": 1}]
    assert notes(decoded) == [(3, "typed_record", False)]


@pytest.mark.parametrize("word", ["Function_call", "x_tool", "custom"])
def test_another_word_before_json_is_an_item_or_a_message(word: str, engine: Engine) -> None:
    """A word that is no item type: 0.6 to 0.17.0 wrote such an item and a message of that
    role with JSON text alike. The item, ambiguous; the message, the candidate."""
    decoded = read(engine, f'1. {word}: {{"a": 1}}')
    assert decoded.items == [{"a": 1, "type": word}]
    assert notes(decoded) == [(3, "ambiguous", True)]
    [candidate] = decoded.candidates
    assert candidate.items == [{"role": word, "content": '{"a": 1}'}]


# ------------------------------------------------------- known and named roles
def test_spilled_content_keeps_its_line_breaks_and_lookalike_lines(engine: Engine) -> None:
    decoded = read(engine, "1. user: a\r", "", "3. user: x", "2. assistant: Steps:", "1. one",
                   "2. two", '3. function_call: {"call_id": "c"}',
                   '4. function_call_output: {"call_id": "c"}')
    assert decoded.items == [
        {"role": "user", "content": "a\r\n\n3. user: x"},
        {"role": "assistant", "content": "Steps:\n1. one\n2. two"},
        {"type": "function_call", "call_id": "c"},
        {"type": "function_call_output", "call_id": "c"},
    ]
    assert decoded.format is Format.LEGACY_0_6


def test_names_that_hold_colons_or_parentheses(engine: Engine) -> None:
    decoded = read(engine, "1. user (team:alice): q", "2. assistant (bot) (0): ",
                   "3. assistant (agent (v2)): a")
    assert decoded.items == [
        {"role": "user", "name": "team:alice", "content": "q"},
        {"role": "assistant (bot)", "name": "0", "content": ""},
        {"role": "assistant", "name": "agent (v2)", "content": "a"},
    ]


def test_a_name_spilled_over_two_lines(engine: Engine) -> None:
    decoded = read(engine, "1. user (bob", "alice): hi")
    assert decoded.items == [{"role": "user", "name": "bob\nalice", "content": "hi"}]
    assert notes(decoded) == [(3, "continuation", False)]


# ------------------------------------------------------------ bare and JSON
def test_a_bare_role_is_an_empty_turn(engine: Engine) -> None:
    decoded = read(engine, "1. user: hi", "2. assistant (bot)", "3. user: ok")
    assert decoded.items[1] == {"role": "assistant", "name": "bot", "content": ""}
    assert notes(decoded) == [(4, "bare_role", True)] and decoded.complete
    # 0.6 to 0.19 and openai-agents-js wrote bare roles: the label names no one of them.
    assert decoded.format is Format.LEGACY
    assert decoded.writers == (
        "openai-agents 0.6.0 to 0.17.0 (and the Rust and Go ports that copy it)",
        "openai-agents 0.17.1 to 0.19.x",
        "openai-agents-js (a development commit, never released)")


@pytest.mark.parametrize("first", ['1. {"role": "user", "content": "a"}', "1. user"])
def test_a_line_below_a_json_or_bare_record_belongs_to_none(first: str,
                                                           engine: Engine) -> None:
    decoded = read(engine, first, "more")
    assert len(decoded.items) == 1
    assert (4, "unrecognised", True) in notes(decoded) and not decoded.complete
    assert "'more'" in decoded.recoveries[-1].message


def test_a_numbered_line_of_prose_is_no_turn(engine: Engine) -> None:
    """Under a raw writer (nothing rules one out) it is content of the record above, never
    dropped; where the writers escape line breaks, a record that holds no turn."""
    decoded = read(engine, "1. user: hi", "2. this is some prose without a separator",
                   "3. assistant: ok")
    assert decoded.items == [{"role": "user", "content": "hi\n2. this is some prose without "
                                                        "a separator"},
                             {"role": "assistant", "content": "ok"}]
    assert notes(decoded) == [(3, "continuation", False)] and decoded.lossless
    decoded = read(engine, '1. {"content": "a\\nb", "role": "user"}', "2. prose",
                   "3. assistant: ok")
    assert decoded.items == [{"role": "user", "content": "a\nb"},
                             {"role": "assistant", "content": "ok"}]
    assert notes(decoded) == [(4, "unrecognised", True)] and not decoded.complete


def test_text_that_starts_with_a_brace_and_is_not_json(engine: Engine) -> None:
    decoded = read(engine, "1. {not json")
    assert decoded.items == []
    assert notes(decoded) == [(3, "not_json", False), (3, "unrecognised", True)]
    decoded = read(engine, '1. {"role" : x}: y')
    assert decoded.items == [{"role": '{"role" ', "content": "x}: y"}]
    # (read as the SDK reads it, but no writer writes a role that starts as JSON)
    assert notes(decoded) == [(3, "not_json", False), (3, "ambiguous", True)]


@pytest.mark.parametrize(("word", "value"), [("NaN", math.nan), ("Infinity", math.inf),
                                             ("-Infinity", -math.inf)])
def test_a_json_record_holding_nan_or_infinity_with_a_line_below(
    word: str, value: float, engine: Engine
) -> None:
    decoded = read(engine, '1. {"role": "user", "content": ' + word + "}", "x")
    [item] = decoded.items
    assert item["role"] == "user"
    assert math.isnan(item["content"]) if math.isnan(value) else item["content"] == value
    assert notes(decoded) == [(3, "non_standard_json", False), (4, "unrecognised", True)]


@pytest.mark.parametrize("spilled", [1, 100, 5_000])
@pytest.mark.parametrize("rest", ["user: a", "user (bob): a", 'tool: {"a": 1}',
                                  'critic: {"a": 1}'])
def test_a_record_spilled_over_many_lines_keeps_every_line(spilled: int, rest: str,
                                                          engine: Engine) -> None:
    decoded = read(engine, f"1. {rest}", *["x"] * spilled, "2. assistant: b")
    assert len(decoded.items) == 2
    assert decoded.items[0]["content"] == rest.partition(": ")[2] + "\nx" * spilled
    assert notes(decoded) == [(3, "continuation", False)]
