"""A flagged read offers what the raw openai-agents 0.6 to 0.17.0 writer was given.

Each text below is what that writer wrote (tests/support/raw_writer.py) for
items a caller may give it: content and names written raw, so lines of them
look like records. No text settles which reading is the written one; the read
is flagged (``ambiguous`` or another lost recovery) and the written items are
``decoded.items`` or one of ``decoded.candidates``: among them the likeliest
readings as that writer wrote it (records numbered 1, 2, 3 in order, each a
line of its vocabulary; docs/spec.md section 13). Each class was found by the
hostile generator (tests/support/hostile_raw.py) and shrunk.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Decoded, Format
from handoff_codec.format.report import Candidate
from tests.format.read.summaries import AS_WRITTEN, Engine, as_written
from tests.support.raw_writer import raw_holds, raw_summary

Item = dict[str, Any]

CASES: dict[str, list[Item]] = {
    # A name holding a line break: the writer wrote it verbatim, so the record's head
    # spans lines, and a line of the name may look like a record.
    "a name holding a line break and a record-shaped line":
        [{"role": "user", "name": "x\n4. system: y", "content": "x"}],
    "a name holding a line break that continues the numbering":
        [{"role": "user", "name": "q\n2. user: z", "content": "x"}],
    "an empty turn whose name holds a line break": [{"role": "user", "name": "b\nc"}],
    # A name that holds '): ' after a tool item whose line was lowered with it.
    "a name holding '): ' after a tool item": [
        {"role": "user", "content": "x"}, {"type": "mcp_call", "id": "m1", "output": "x"},
        {"role": "user", "name": "): ", "content": "x"}],
    # Two content lines numbered alike: neither starts the record.
    "lines numbered alike, both content":
        [{"role": "user", "content": "x\n2. user: hi\n2. user: hi"}],
    # Below `N. role: `, a line out of sequence then one that follows the numbering.
    "a line out of sequence, then one in sequence": [
        {"role": "user", "content": "\n3. assistant: b\n2. user: Speed: fast"}],
    # A bare role in content that follows the numbering (the fast engine's one pass).
    "a bare role that follows the numbering": [{"role": "user", "content": "hi\n2. user"}],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_written_items_are_offered(name: str, engine: Engine) -> None:
    items = CASES[name]
    written = [raw_holds(item) for item in items]
    decoded = handoff_codec.decode(raw_summary(items), engine=engine)
    assert not decoded.lossless
    readings = [decoded.items, *(candidate.items for candidate in decoded.candidates)]
    assert written in readings
    if decoded.items != written:  # (the readings as written leave out the reading itself)
        assert written in [candidate.items for candidate in as_written(decoded)]


def test_the_readings_as_written_come_last_and_the_reading_itself_is_not_one(
        engine: Engine) -> None:
    """The readings as the writer wrote it follow the others, the likeliest first, and
    the reading the read gives is not offered again."""
    text = raw_summary([{"role": "user", "content": "x\n2. user: hi\n2. user: hi"}])
    decoded = handoff_codec.decode(text, engine=engine)
    readings = [candidate.reading for candidate in decoded.candidates]
    first = next(at for at, reading in enumerate(readings) if reading.startswith(AS_WRITTEN))
    assert all(reading.startswith(AS_WRITTEN) for reading in readings[first:])
    assert "likeliest such reading (cost 1:" in readings[first]
    assert all(candidate.items != decoded.items for candidate in as_written(decoded))


def test_a_read_that_loses_nothing_offers_none(engine: Engine) -> None:
    text = raw_summary([{"role": "user", "content": "see:"},
                        {"role": "assistant", "content": "noted"}])
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.lossless and decoded.candidates == ()


def test_a_long_body_is_not_searched(engine: Engine) -> None:
    """A body of more than 2,000 lines offers no reading as the writer wrote it (what
    the search holds grows with the lines)."""
    items = [{"role": "user", "content": "x\n2. user: hi\n2. user: hi"},
             *({"role": "assistant", "content": "ok"} for _ in range(2000))]
    decoded = handoff_codec.decode(raw_summary(items), engine=engine)
    assert not decoded.lossless and as_written(decoded) == []


def test_candidates_given_as_a_function_are_found_once_when_first_asked_for() -> None:
    """A read that never asks for the candidates does not search for them."""
    calls: list[int] = []

    def found() -> tuple[Candidate, ...]:
        calls.append(1)
        return (Candidate(reading="other", items=[{"role": "user", "content": "a"}]),)

    decoded = Decoded(items=[], format=Format.LEGACY, candidates=found)
    assert calls == []
    assert decoded.candidates == decoded.candidates and len(calls) == 1
    assert pickle.loads(pickle.dumps(decoded)) == decoded
    assert decoded.model_dump()["candidates"][0]["reading"] == "other"
