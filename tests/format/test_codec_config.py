"""Codec configuration: immutable, per instance, any marker text."""

from __future__ import annotations

import pickle

import pytest

import handoff_codec
from handoff_codec import Codec
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, default_codec
from handoff_codec.format import grammar as _grammar
from tests.format.read.summaries import Engine
from tests.support.sdk import sdk_read

ITEMS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]


@pytest.mark.parametrize(
    ("start", "end"),
    [("[[history]]", "[[/history]]"), ("^(.*)$ |+?", "\\1 {2} /x/"), ("«историја» 😀", "« конец »"),
     ("  spaced marker ", "end marker with  spaces")],
)
def test_custom_markers_round_trip_and_do_not_leak(start: str, end: str, engine: Engine) -> None:
    codec = Codec(start=start, end=end)
    text = codec.dumps(ITEMS)
    assert text.split("\n")[1] == start and text.endswith("\n" + end)
    assert codec.loads(text, strict=True, engine=engine) == ITEMS == codec.loads(
        text, engine=engine)
    assert codec.flatten([codec.summarize(ITEMS)]) == ITEMS
    # The default codec is untouched and does not read the other markers.
    assert handoff_codec.dumps(ITEMS).split("\n")[1] == "<CONVERSATION HISTORY>"
    with pytest.raises(handoff_codec.DecodeError):
        handoff_codec.loads(text, strict=True, engine=engine)
    assert handoff_codec.flatten([codec.summarize(ITEMS)]) == [codec.summarize(ITEMS)]


def test_custom_preamble(engine: Engine) -> None:
    codec = Codec(preamble="Earlier turns:")
    text = codec.dumps(ITEMS)
    assert text.startswith("Earlier turns:\n")
    assert codec.loads(text, engine=engine) == ITEMS


def test_codec_is_immutable_and_hashable() -> None:
    codec = Codec(start="<a>")
    with pytest.raises(AttributeError, match="immutable"):
        codec.start = "<b>"
    assert hash(codec) == hash(Codec(start="<a>"))
    assert codec.replace(start="<b>") == Codec(start="<b>") and codec.start == "<a>"
    with pytest.raises(TypeError, match="no field"):
        codec.replace(begin="<b>")


@pytest.mark.parametrize(("field", "value"), [
    ("preamble", ""), ("start", ""), ("end", ""), ("preamble", "two\nlines"),
    ("end", "1. user: x\n</H>"),  # a record-shaped line a reader would take for a record
    ("end", "2.\n</H>"),  # a line the lenient reader numbers, as record 2 or its content
    # a lone surrogate: the summary could not be stored as UTF-8
    ("preamble", "Earlier\ud800:"), ("start", "<\ud800>"), ("end", "</\udfff>"),
    # the legacy preamble: no reader could tell this codec's summaries from legacy ones
    ("preamble", "For context, here is the conversation so far:"),
])
def test_invalid_configuration(field: str, value: str) -> None:
    with pytest.raises(ValueError, match=field):
        Codec(**{field: value})


@pytest.mark.parametrize(("start", "end"), [("<H>\n<X>", "</X>\n</H>"), ("<H>\n", "\n</H>")])
def test_markers_may_span_lines(start: str, end: str, engine: Engine) -> None:
    """The Agents SDK accepts wrappers with a line break; a Codec can hold them."""
    items = [*ITEMS, {"role": "user", "content": "two\nlines"}]
    for codec in (Codec(start=start, end=end), Codec(start=start, end=end, key=b"k")):
        text = codec.dumps(items)
        assert text.startswith(f"{codec.preamble}\n{start}\n") and text.endswith(f"\n{end}")
        assert codec.loads(text, strict=True, engine=engine) == items
        assert codec.loads(text, engine=engine) == items
    signed = Codec(start=start, end=end, key=b"k")
    assert signed.verify(signed.dumps(items))
    assert signed.flatten([signed.summarize(items)], trust="signed") == items


def test_one_parser_per_configuration() -> None:
    legacy_text = "\n".join(["Earlier:", "<cache-a>", "1. user", "</cache-a>"])
    sizes = []
    for _ in range(3):
        codec = Codec(preamble="Earlier:", start="<cache-a>", end="</cache-a>")
        assert codec.loads(codec.dumps(ITEMS), strict=True, engine="lark") == codec.loads(
            codec.dumps(ITEMS), engine="lark")
        assert codec.loads(legacy_text, engine="lark") == [{"role": "user", "content": ""}]
        sizes.append(_grammar.parser.cache_info().currsize)
    assert sizes[0] == sizes[1] == sizes[2]  # built once: strict and lenient


def test_sdk_reads_default_codec_output_only() -> None:
    """The SDK's markers are global; ours are per Codec."""
    assert sdk_read(handoff_codec.format.summarize(ITEMS)) == ITEMS
    assert sdk_read(Codec(start="<x>", end="</x>").summarize(ITEMS)) is None


P, S, E = DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END
ENVELOPES = {
    "smallest envelope": (f"{P}\n{S}\n{E}", True),
    "with records": (f"{P}\n{S}\n1. user: a\n{E}", True),
    "legacy preamble": (f"{handoff_codec.format.LEGACY_PREAMBLE}\n{S}\n1. user: a\n{E}", True),
    "preamble runs on": (f"{P}!\n{S}\n{E}", False),
    "no line break after the preamble": (f"{P}{S}\n{E}", False),
    "start marker runs on": (f"{P}\n{S}!\n{E}", False),
    "no end marker": (f"{P}\n{S}\n1. user: a\n", False),
    "end marker on the start line": (f"{P}\n{S}{E}", False),
    "text after the end marker": (f"{P}\n{S}\n{E}\n", False),
    "preamble only": (f"{P}\n", False),
}


@pytest.mark.parametrize(("content", "expected"), ENVELOPES.values(), ids=ENVELOPES.keys())
def test_is_summary_needs_the_whole_envelope(content: str, expected: bool) -> None:
    assert default_codec.is_summary({"role": "assistant", "content": content}) \
        is expected
    assert not default_codec.is_summary({"role": "user", "content": content})


def test_is_summary_with_short_custom_markers() -> None:
    codec = Codec(preamble="P", start="<", end="<")
    assert codec.is_summary({"role": "assistant", "content": "P\n<\n<"})
    assert not codec.is_summary({"role": "assistant", "content": "P\n<"})  # one marker, two uses
    assert not codec.is_summary({"role": "assistant", "content": ["P\n<\n<"]})


def test_a_replaced_or_unpickled_codec_reads_with_its_own_envelope(engine: Engine) -> None:
    items = [{"role": "user", "content": "a"}]
    custom = default_codec.replace(preamble="Earlier:", end="</H>")
    text = custom.dumps(items)
    assert text.startswith("Earlier:\n") and text.endswith("\n</H>")
    again = pickle.loads(pickle.dumps(custom))
    assert again == custom and hash(again) == hash(custom) and repr(again) == repr(custom)
    for codec in (custom, again):
        assert codec.loads(text, engine=engine) == codec.loads(text, strict=True,
                                                               engine=engine) == items
        assert codec.decode(text, engine=engine).items == items
        with pytest.raises(handoff_codec.DecodeError):
            codec.loads(handoff_codec.dumps(items), strict=True, engine=engine)
    assert "_literals" not in repr(custom)
    assert custom != default_codec
