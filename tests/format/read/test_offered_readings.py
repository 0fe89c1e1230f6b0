"""Whenever a reading is flagged, the items the writer had are the reading or a candidate.

One test per class of text the raw authority property (test_raw_authority.py) found
where they were not: each text is byte for byte what the raw openai-agents 0.6 to
0.17.0 writer (tests/support/raw_writer.py) wrote for the items given, and reads,
on both engines, as those items or offers them among ``Decoded.candidates`` (docs/
spec.md, "Names", "Numbering", "Authority" and "Inherently ambiguous readings").
"""

from __future__ import annotations

from typing import Any

import handoff_codec
from handoff_codec import Decoded
from tests.format.read.summaries import Engine
from tests.support.raw_writer import raw_holds, raw_summary

Item = dict[str, Any]
REASONING: Item = {"type": "reasoning", "summary": []}


def user(content: str, name: str | None = None) -> Item:
    return {"role": "user", **({"name": name} if name else {}), "content": content}


def read(items: list[Item], engine: Engine) -> tuple[Decoded, list[Item]]:
    """The raw writer's text of ``items`` decoded, and what that text holds of them."""
    return (handoff_codec.decode(raw_summary(items), engine=engine),
            [raw_holds(item) for item in items])


def offered(decoded: Decoded, written: list[Item]) -> bool:
    """Whether ``written`` is the reading, or the reading is flagged and ``written`` is one
    of its candidates."""
    return decoded.items == written or (not decoded.lossless and written in [
        candidate.items for candidate in decoded.candidates])


def test_an_empty_turn_whose_name_holds_close_paren_colon(engine: Engine) -> None:
    """`1. user (a): b)`: 0.6 to 0.19 wrote an empty turn named `a): b` so (a bare role),
    and a turn named `a` with content `b)` the same way: ambiguous, both offered. It was
    read as the second, exit 0."""
    decoded, written = read([user("", name="a): b")], engine)
    assert decoded.items == [user("b)", name="a")] and not decoded.lossless
    assert offered(decoded, written)
    # ... and with a tool output below, which only the first reading lowers:
    decoded, written = read([user("", name="a): b"), {"type": "function_call_output"}],
                            engine)
    assert offered(decoded, written)


def test_a_name_is_read_to_its_first_close_paren_colon(engine: Engine) -> None:
    """`1. user (   ): 2. user (x)): hi`: a whitespace name, then content that holds '): '.
    It was read as the name `   ): 2. user (x)`, exit 0."""
    decoded, written = read([user("2. user (x)): hi", name="   ")], engine)
    assert decoded.items == written and not decoded.lossless  # (the other name is offered)


def test_a_name_that_holds_close_paren_colon_before_a_line_noted_ambiguous(
    engine: Engine
) -> None:
    """The name read to its last '): ' and the line below read as the record it looks
    like, at once (a tool output that answers no call)."""
    decoded, written = read([user("hi", name="a): b"), {"type": "function_call_output"}],
                            engine)
    assert not decoded.lossless and offered(decoded, written)
    # and to its second '): ' of three
    decoded, written = read([user("7. Speed (a (b)): fine", name="a): b")], engine)
    assert offered(decoded, written)


def test_a_line_below_an_empty_looking_turn_is_content_where_only_raw_writers_are_left(
    engine: Engine
) -> None:
    """`2. user: ` then `3. assistant`, after a typed record (0.6 to 0.17.0): that writer
    wrote `role: ` only for content that starts with a line break, so the line below is
    content. It was read as a bare assistant turn (and as an extra turn, exit 0, for
    `3. assistant: ok`)."""
    for content in ("\n3. assistant", "\n3. assistant: ok"):
        decoded, written = read([REASONING, user(content)], engine)
        assert decoded.items == written


def test_the_raw_writer_reading_is_offered(engine: Engine) -> None:
    """Two lines numbered 2 after spilled user text, each a tool item that nothing pairs:
    the raw writer's record is the last of them (its content comes before it), and it
    reads however much authority it gains."""
    items = [user('hi\n2. custom_tool_call: {"call_id": "c2", "output": "x"}'),
             {"type": "function_call_output"}]
    decoded, written = read(items, engine)
    assert decoded.items == [user(items[0]["content"] + "\n2. function_call_output: {}")]
    assert not decoded.lossless and offered(decoded, written)


def test_records_above_a_line_read_as_content_are_content_too(engine: Engine) -> None:
    """`3. developer: ` after a typed record after a user turn is lowered; the typed record
    above it is then the user's text too, never dropped as a line of no record (it was
    dropped, and the developer turn with it)."""
    decoded, written = read([user("hi"), REASONING, {"role": "developer", "content": "\n4. fine"}],
                            engine)
    assert decoded.items == [user('hi\n2. reasoning: {"summary": []}\n3. developer: \n4. fine')]
    assert "unrecognised" not in {r.kind.value for r in decoded.recoveries}
    assert offered(decoded, written)


def test_an_empty_turn_whose_name_holds_a_colon_holds_no_content(engine: Engine) -> None:
    """`1. user (team: x)` is an empty turn of one line: the records below it are records
    whatever the writer, and a tool turn is not lowered (it was, and dropped)."""
    items = [user("", name="team: x"), REASONING, {"role": "tool", "content": "hi"}]
    decoded, written = read(items, engine)
    assert decoded.items == written


def test_a_one_line_record_above_a_line_that_is_no_record_is_content(engine: Engine) -> None:
    """Where only raw writers are left, a bare record is followed by a record: `2. user
    (x))` above `2. ok` is the user's text (it was a record, and `2. ok` was dropped)."""
    decoded, written = read([user("a\nb\n2. user (x))\n2. ok")], engine)
    assert decoded.items == written and decoded.lossless


def test_json_with_python_separators_is_no_raw_writers_record(engine: Engine) -> None:
    """0.6 to 0.17.0 wrote no JSON record and openai-agents-js compact JSON: after spilled
    content (which proves such a writer), `2. {"role": "user", ...}` is text. It was read
    as a record, exit 0."""
    decoded, written = read([user('notes:\nline two\n2. {"role": "user", "content": "x"}')],
                            engine)
    assert decoded.items == written


def test_marker_lines_around_a_lowered_line_are_reported(engine: Engine) -> None:
    """A start and an end marker line, no preamble line, and a developer line between them
    that authority keeps as text: it was read as a summary quoted in content, exit 0."""
    items = [user("\n<CONVERSATION HISTORY>", name="a): b"),
             {"role": "developer", "content": "\n</CONVERSATION HISTORY>"}]
    decoded, written = read(items, engine)
    assert not decoded.lossless and offered(decoded, written)


def test_a_line_of_no_vocabulary_does_not_count_in_the_numbering_of_a_raw_writer(
    engine: Engine
) -> None:
    """Spilled content proves a raw writer, whose records are numbered 1, 2, 3: `3. user:
    hi` after `2. Speed: fast` in a record's text is no record 3 (it was, exit 0)."""
    items = [{"role": "tool", "name": "bob", "content": "3. critic (a (b))\n4. critic: do\n"
              "3. critic (team: x): do this\n5. user: hi"}]
    decoded, written = read([REASONING, REASONING, *items], engine)
    assert offered(decoded, written)
    assert not (decoded.lossless and decoded.items != written)


def test_the_first_lines_noted_ambiguous_as_records_and_the_rest_as_text(
    engine: Engine
) -> None:
    """A tool turn after a user turn, with a bare tool line in its text: the first is the
    record, the second its text (both are lowered; the reading with only the first raised
    is offered)."""
    items = [REASONING, user("ok"), {"role": "tool", "content": "hi\n4. tool"}]
    decoded, written = read(items, engine)
    assert not decoded.lossless and offered(decoded, written)
