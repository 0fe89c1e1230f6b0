"""The envelope: preamble, markers, the optional signature line, and the body they hold.

A lenient read accepts the codec's preamble or the short legacy one
(``legacy_preamble``), a signature line after the start marker, and a body
that is the empty transcript or numbered lines; anything else around the body
is refused with the line and column where the envelope breaks. Both engines
read every envelope alike, with any codec's preamble and markers.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import Codec, DecodeError, Format, RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE
from tests.format.read.summaries import SIGNATURE, Engine, outcome
from tests.support.profiles import examples
from tests.support.strategies import spliced

BODY = '1. {"content": "a", "role": "user"}\n2. assistant\n  more\n'


@pytest.mark.parametrize("signature", ["", SIGNATURE])
def test_the_legacy_preamble_is_noted(signature: str, engine: Engine) -> None:
    text = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n{signature}1. user: a\n{DEFAULT_END}"
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": "a"}]
    assert [(r.line, r.kind, r.lost) for r in decoded.recoveries] == [
        (1, RecoveryKind.LEGACY_PREAMBLE, False)]
    assert decoded.lossless and decoded.format is not Format.CURRENT


@pytest.mark.parametrize("preamble", [DEFAULT_PREAMBLE, LEGACY_PREAMBLE])
def test_a_signature_line_moves_the_body_down_a_line(preamble: str, engine: Engine) -> None:
    text = f"{preamble}\n{DEFAULT_START}\n{SIGNATURE}{BODY}{DEFAULT_END}"
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": "a"},
                             {"role": "assistant", "content": ""}]
    assert (5, RecoveryKind.BARE_ROLE, True) in [(r.line, r.kind, r.lost)
                                                 for r in decoded.recoveries]
    assert (6, RecoveryKind.UNRECOGNISED, True) in [(r.line, r.kind, r.lost)
                                                    for r in decoded.recoveries]


@pytest.mark.parametrize(("text", "line", "column"), [
    ("", 1, 1),
    (f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n{DEFAULT_END}", 3, 1),  # no body
    (f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}\n", 5, 1),
    (f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n(no previous turns recorded)\n1. user: a\n"
     f"{DEFAULT_END}", 4, 1),
    (f"{DEFAULT_PREAMBLE} \n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}", 1, 86),
])
def test_a_broken_envelope_is_refused_where_it_breaks(text: str, line: int, column: int,
                                                      engine: Engine) -> None:
    with pytest.raises(DecodeError) as caught:
        handoff_codec.decode(text, engine=engine)
    assert (caught.value.line, caught.value.column) == (line, column), caught.value


def test_a_preamble_that_the_legacy_one_starts_with(engine: Engine) -> None:
    # Which preamble a text has is decided by the whole first line.
    codec = Codec(preamble="For context, here is the conversation")
    text = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}"
    decoded = codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": "a"}]
    assert [r.kind for r in decoded.recoveries] == [RecoveryKind.LEGACY_PREAMBLE]
    own = f"For context, here is the conversation\n{DEFAULT_START}\n1. user: a\n{DEFAULT_END}"
    assert codec.decode(own, engine=engine).recoveries == []


def test_the_empty_transcript(engine: Engine) -> None:
    text = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n(no previous turns recorded)\n{DEFAULT_END}"
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [] and [r.kind for r in decoded.recoveries] == [
        RecoveryKind.LEGACY_PREAMBLE]


CODECS = {
    "default": Codec(),
    "markers": Codec(preamble="Earlier:", start="[[h]]", end="[[/h]]"),
    "prefix": Codec(preamble="For context, here is the conversation"),
    "lines": Codec(start="<H>\n<X>", end="</X>\n</H>"),
}


@st.composite
def envelopes(draw: st.DrawFn, codec: Codec) -> str:
    """Texts made of a codec's envelope pieces, the legacy preamble and body lines."""
    pieces = [codec.preamble, LEGACY_PREAMBLE, codec.start, codec.end, "\n", "\n\n", SIGNATURE,
              "(no previous turns recorded)", "1. user: hi\n", "2. assistant: a\nb\n", "x", " ",
              f"{codec.preamble}\n{codec.start}\n", f"{LEGACY_PREAMBLE}\n{codec.start}\n",
              "\n" + codec.end, "2. user", "{", "1. "]
    text = draw(spliced(pieces, st.text(min_size=2, max_size=40), min_size=1, max_size=10,
                        max_run=8))
    if draw(st.booleans()):  # the body alone, in a whole envelope of either preamble
        preamble = draw(st.sampled_from([codec.preamble, LEGACY_PREAMBLE]))
        signature = draw(st.sampled_from(["", SIGNATURE]))
        text = f"{preamble}\n{codec.start}\n{signature}1. user: a\n{text}\n{codec.end}"
    return text


@examples(1000)
@given(data=st.data(), name=st.sampled_from(sorted(CODECS)))
@example(data=None, name="default")
def test_both_engines_read_every_envelope_alike(data: st.DataObject | None, name: str) -> None:
    codec = CODECS[name]
    texts = [f"{codec.preamble}\n{codec.start}\n{SIGNATURE}{SIGNATURE}1. user: a\n{codec.end}"]
    if data is not None:
        texts = [data.draw(envelopes(codec))]
    for text in texts:
        for strict in (False, True):
            assert outcome(text, "fast", strict=strict, codec=codec) == outcome(
                text, "lark", strict=strict, codec=codec)
