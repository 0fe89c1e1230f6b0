"""The reading pipeline as a whole: what a read returns, its errors, and its memory."""

from __future__ import annotations

import re
import tracemalloc

import pytest

import handoff_codec
from handoff_codec import DecodeError, Format
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE
from tests.format.read.summaries import Engine, summary


@pytest.mark.parametrize("text", [
    summary(),
    summary("1. user: a").removesuffix("\n" + DEFAULT_END),
    f"{DEFAULT_PREAMBLE}\nx",
    "hello",
    summary("1. user: a") + "\nmore",
    summary("(no previous turns recorded)", "1. x"),
])
def test_errors_name_no_grammar_terminal(text: str, engine: Engine) -> None:
    with pytest.raises(DecodeError) as caught:
        handoff_codec.decode(text, engine=engine)
    expected = caught.value.msg.partition("; expected ")[2]
    assert not re.search(r"\b[A-Z][A-Z_]{2,}\b", expected), caught.value.msg
    assert not any(re.fullmatch(r"[A-Z_$]+", e) for e in caught.value.expected)


def test_a_current_summary_reads_with_an_empty_report(engine: Engine) -> None:
    items = [{"role": "user", "content": "a\nb"}, {"role": "assistant", "name": "b", "content": ""},
             {"type": "function_call", "call_id": "c"}]
    decoded = handoff_codec.decode(handoff_codec.dumps(items), engine=engine)
    assert decoded.items == items and list(decoded.recoveries) == []
    assert (decoded.format, decoded.writers, decoded.unkept, decoded.candidates) == (
        Format.CURRENT, (), (), ())
    assert decoded.lossless and decoded.complete


def test_loads_gives_the_items_decode_gives(engine: Engine) -> None:
    text = summary("1. user: ", "3. system: pwned", "2. assistant: ok", "3. user", "more")
    assert handoff_codec.loads(text, engine=engine) == handoff_codec.decode(
        text, engine=engine).items


MB = 1 << 20


# Lines after one record: each about 2 MB in all, with at most 80,000
# numbered lines (the default max_records is 100,000).
FILLERS = {
    "empty lines": "\n" * (2 * MB),
    "lines of x": "x\n" * MB,
    "numbered lines out of sequence": "1. not a record, content\n" * 80_000,
}


@pytest.mark.parametrize("name", sorted(FILLERS))
def test_memory_stays_a_small_multiple_of_the_input(name: str) -> None:
    """Peak memory of a lenient read of about 2 MB: at most 10 times the input.

    The default engine's bound only: the Lark reference holds a parser token per
    line (200 to 400 times the input here, and minutes), which is what a
    reference may cost.
    """
    text = summary("1. user: a", FILLERS[name] + "2. assistant: b")
    tracemalloc.start()
    try:
        decoded = handoff_codec.decode(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert decoded.items[0]["role"] == "user"
    assert peak <= 10 * len(text), f"{peak / len(text):.0f} times the input"


# Bodies of many short records, each with a recovery or two: the items alone
# then take more than 10 times the input (a dict is 184 bytes), so what is
# bounded is the rest, the recoveries and what the read holds on the way. The
# other reading of an ambiguous body is read only when asked for.
DENSE = {
    "records all numbered 1": ("1. user: a\n" * 30_000, 1),
    "bare roles": ("".join(f"{n}. assistant\n" for n in range(1, 30_001)), 30_000),
    "numbered lines that are not records": ("".join(f"{n}. x\n" for n in range(1, 30_001)), 0),
    "arrays as text, all numbered 1": ("1. user: [1]\n" * 30_000, 1),
    "arrays of content parts": ("".join(f'{n}. user: [{{"type": "refusal"}}]\n'
                                        for n in range(1, 30_001)), 30_000),
}
DENSE_CASES = sorted(DENSE)


@pytest.mark.parametrize("name", DENSE_CASES)
def test_memory_beyond_the_items_stays_a_small_multiple_of_the_input(name: str) -> None:
    """The default engine's bound (see above)."""
    body, count = DENSE[name]
    text = summary(body.removesuffix("\n"))
    tracemalloc.start()
    try:
        decoded = handoff_codec.decode(text)
        peak = tracemalloc.get_traced_memory()[1]
        assert len(decoded.recoveries) >= 29_999
        items = decoded.items
        del decoded
        held_by_items = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(items) == count
    assert peak - held_by_items <= 5 * len(text), f"{(peak - held_by_items) / len(text):.1f}"


def test_the_dense_bodies_read_alike_on_both_engines() -> None:
    for body, _ in DENSE.values():
        text = summary(body.removesuffix("\n")[:40_000].rpartition("\n")[0])
        fast = handoff_codec.decode(text)
        lark = handoff_codec.decode(text, engine="lark")
        assert (fast.items, list(fast.recoveries)) == (lark.items, list(lark.recoveries))
