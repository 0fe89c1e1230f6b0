"""Every recovery a read notes: its line, kind, loss and message, read as a list of Recovery."""

from __future__ import annotations

import pickle

import pytest

import handoff_codec
from handoff_codec import Recovery, RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_START, LEGACY_PREAMBLE
from tests.format.read.summaries import Engine, summary

RAW = ("nothing in the summary rules out a writer that wrote content raw (openai-agents 0.6 "
       "to 0.17.0, or a port of it), but an edited summary would make it a record of its own "
       "(see candidates)")


def test_recoveries_read_as_a_list_of_recovery(engine: Engine) -> None:
    text = "\n".join([LEGACY_PREAMBLE, DEFAULT_START, "1. user: [1]", "3. assistant: b",
                      "3. user: z", DEFAULT_END])
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": "[1]\n3. assistant: b\n3. user: z"}]
    expected = [
        Recovery(line=1, kind=RecoveryKind.LEGACY_PREAMBLE, message="the short legacy preamble"),
        Recovery(line=3, kind=RecoveryKind.CONTINUATION, message=(
            "the record continues on the next 2 line(s); joined with '\\n'")),
        Recovery(line=4, kind=RecoveryKind.AMBIGUOUS, lost=True, message=(
            "a line numbered out of sequence, read as content of the record above: "
            f"'3. assistant: b'; {RAW}")),
        Recovery(line=5, kind=RecoveryKind.AMBIGUOUS, lost=True, message=(
            "a line numbered out of sequence, read as content of the record above: "
            f"'3. user: z'; {RAW}")),
    ]
    recoveries = decoded.recoveries
    assert list(recoveries) == expected and recoveries == expected and expected == recoveries
    assert (len(recoveries), recoveries[-1], recoveries[1:3]) == (4, expected[3], expected[1:3])
    assert recoveries != expected[:3] and recoveries != "text"
    assert decoded.model_dump(mode="json")["recoveries"] == [
        r.model_dump(mode="json") for r in expected]
    assert pickle.loads(pickle.dumps(decoded)) == decoded
    assert handoff_codec.Decoded.model_validate(decoded.model_dump()) == decoded
    assert (decoded.lossless, decoded.complete) == (False, True)


# One text per kind of recovery, and the message it is noted with.
MESSAGES = {
    "legacy_preamble": (LEGACY_PREAMBLE + "\n" + DEFAULT_START + "\n1. user: a\n" + DEFAULT_END,
                        1, "the short legacy preamble", False),
    "bare_role": (summary("1. user"), 3, "an empty turn written as a bare role; read with "
                  "content ''. Whether it was None or '' is not in the text", True),
    "continuation": (summary("1. user: a", "b", "c"), 3,
                     "the record continues on the next 2 line(s); joined with '\\n'", False),
    "typed_record": (summary("1. reasoning: {}"), 3,
                     "'reasoning: {...}' read as an item of type 'reasoning' (no message has "
                     "that role)", False),
    "renumbered": (summary("3. user: a"), 3, "a record numbered 3 where 1 was expected; read as "
                   "a record of its own: the summary was edited; 2 record(s) before it are gone",
                   True),
    "not_json": (summary("1. {not json"), 3, "starts with '{' but is not a JSON object; read as "
                 "a plain record, as the Agents SDK does", False),
    "unrecognised": (summary('1. {"role": "user", "content": "a"}', "2. no colon here"), 4,
                     "a line that belongs to no record; not read as a turn: "
                     "'2. no colon here'", True),
    "non_standard_json": (summary('1. {"a": NaN}'), 3, "NaN or Infinity, which JSON (RFC 8259) "
                          "does not allow; read as a float, as json.loads does", False),
    "ambiguous": (summary('1. user: [{"type": "input_text", "text": "hi"}]'), 3,
                  "content that is a JSON array of content parts, kept as the text: "
                  "'[{\"type\": \"input_text\", \"text\": \"hi\"}]'; openai-agents 0.6 to "
                  "0.17.0 wrote list content the same way, so it may have been a list (see "
                  "candidates)", True),
}


def test_every_kind_has_a_text_here() -> None:
    assert set(MESSAGES) == {str(kind) for kind in RecoveryKind}


@pytest.mark.parametrize("kind", sorted(MESSAGES))
def test_each_kind_is_noted_with_its_line_message_and_loss(kind: str, engine: Engine) -> None:
    text, line, message, lost = MESSAGES[kind]
    decoded = handoff_codec.decode(text, engine=engine)
    assert Recovery(line=line, kind=RecoveryKind(kind), message=message, lost=lost) in list(
        decoded.recoveries)


def test_a_long_line_is_quoted_in_part(engine: Engine) -> None:
    line = "3. user: " + "x" * 200
    decoded = handoff_codec.decode(summary("1. user: a", line), engine=engine)
    [_, recovery] = decoded.recoveries
    assert repr(line[:60]) in recovery.message and line not in recovery.message


def test_a_gap_past_18_digits_names_no_count(engine: Engine) -> None:
    number = "9" * 25
    decoded = handoff_codec.decode(summary(f"{number}. user: hi"), engine=engine)
    [recovery] = decoded.recoveries
    assert recovery.kind is RecoveryKind.RENUMBERED and recovery.lost
    assert "9" * 20 + "..." in recovery.message and "gone" not in recovery.message
