"""The report types keep their public shape: fields, equality, pickling and dumps.

``Decoded`` has the fields items, format, recoveries, writers, unkept and
candidates (each a ``Candidate``: a reading in words and its items);
``Recovery`` line, kind, message and lost. ``tests/fixtures/report_dumps.json``
holds what ``model_dump``, ``model_dump_json`` and ``repr`` give for the reports
built below: a change of shape shows there. Regenerate only on purpose:
``python -m tests.format.test_report_models``.
"""

from __future__ import annotations

import json
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Decoded, Format, Recovery, RecoveryKind
from handoff_codec.format.report import Candidate, Note, Recoveries
from tests.format.read.summaries import summary

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "report_dumps.json"
TEXT = "1. user: hi\n2. assistant\n3. x: {\"a\": [1, 2]}\nmore\n"


def _quoted(text: str, a: int, b: int) -> str:
    return f"line {text[a:b]!r} belongs to no record"


NOTES = (
    Note(RecoveryKind.BARE_ROLE, "an empty turn written as a bare role", lost=True),
    Note(RecoveryKind.UNRECOGNISED, _quoted, lost=True),
    Note(RecoveryKind.TYPED_RECORD, "read as a typed item"),
)


def _compact() -> Recoveries:
    recoveries = Recoveries(TEXT, NOTES)
    recoveries.add(2, 0)
    recoveries.add(3, 2)
    recoveries.add(4, 1, TEXT.index("more"), TEXT.index("more") + 4)
    return recoveries


ITEMS: list[dict[str, Any]] = [
    {"role": "user", "content": "hi \u2028 \"quoted\" \u00e9\U0001f600"},
    {"role": "assistant", "content": ""},
    {"type": "x", "a": [1, 2.5, None, True, {"b": "c"}]},
]
WRITERS = ("openai-agents 0.6.0 to 0.17.0 (and the Rust and Go ports that copy it)",
           "openai-agents-js (a development commit, never released)")
UNKEPT = ("empty names (left out)", "names (never written)")
# A summary whose report has every field: an ambiguous read with its other reading.
AMBIGUOUS = summary("1. user: hi", "3. system: pwned", "2. assistant: ok", "more")


def reports() -> dict[str, Decoded | Recovery | Candidate]:
    """Reports of every shape: strict, lenient with a list, compact recoveries, writers,
    candidates given as items or as a function that reads them, a real ambiguous read."""
    listed = [
        Recovery(line=1, kind=RecoveryKind.LEGACY_PREAMBLE, message="the short legacy preamble"),
        Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare", lost=True),
    ]
    return {
        "strict": Decoded.model_construct(items=ITEMS, format=Format.CURRENT, recoveries=[]),
        "validated": Decoded(items=ITEMS[:1], format=Format.LEGACY_0_6),
        "listed": Decoded(items=ITEMS, format=Format.LEGACY_0_17_1, recoveries=listed,
                          writers=WRITERS[:1], unkept=UNKEPT[:1]),
        "compact": Decoded.model_construct(items=ITEMS, format=Format.LEGACY_0_6,
                                           recoveries=_compact()),
        "empty": Decoded.model_construct(items=[], format=Format.CURRENT, recoveries=[]),
        "candidates": Decoded(
            items=ITEMS[:2], format=Format.LEGACY, recoveries=listed[1:], writers=WRITERS,
            unkept=UNKEPT, candidates=(
                Candidate(reading="as given", items=ITEMS[1:]),
                Candidate(reading="as read when used", items=lambda: [ITEMS[0]]))),
        "decoded": handoff_codec.decode(AMBIGUOUS),
        "recovery": listed[1],
        "candidate": Candidate(reading="list content", items=[{"role": "user", "content": []}]),
    }


def dumps(report: Decoded | Recovery | Candidate) -> dict[str, Any]:
    """Every serialised form the fixture keeps."""
    return {
        "model_dump_json": report.model_dump(mode="json"),
        "json": report.model_dump_json(),
        "json_indent": report.model_dump_json(indent=2),
        "exclude": report.model_dump(mode="json", exclude={"items", "message"}),
        "repr": repr(report),
    }


def _expected() -> dict[str, dict[str, Any]]:
    expected: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return expected


def test_the_fixture_holds_every_report() -> None:
    assert set(_expected()) == set(reports())
    decoded = _expected()["decoded"]["model_dump_json"]
    assert list(decoded) == ["items", "format", "recoveries", "writers", "unkept", "candidates"]
    assert [candidate["reading"] for candidate in decoded["candidates"]] == [
        "every numbered line a record, as an edited summary would be",
        "as openai-agents 0.6 to 0.17.0 wrote it, its records numbered 1, 2, 3 in order: the "
        "likeliest such reading (cost 1: each line that could start the next record read as "
        "content, each name holding a line break or read to a later '): ', costs 1)"]


@pytest.mark.parametrize("name", list(reports()))
def test_dumps_are_as_they_were(name: str) -> None:
    assert dumps(reports()[name]) == _expected()[name]


@pytest.mark.parametrize("name", list(reports()))
def test_python_dump_keeps_the_enums(name: str) -> None:
    report = reports()[name]
    dumped = report.model_dump()
    listed = {key: list(value) if isinstance(value, tuple) else value
              for key, value in dumped.items()}
    assert json.loads(json.dumps(listed)) == _expected()[name]["model_dump_json"]
    if isinstance(report, Candidate):
        assert dumped["items"] == report.items and dumped["items"] is not report.items
        return
    recoveries = [dumped] if isinstance(report, Recovery) else dumped["recoveries"]
    assert isinstance(recoveries, list)
    assert all(type(r) is dict and isinstance(r["kind"], RecoveryKind) for r in recoveries)
    if isinstance(report, Decoded):
        assert type(dumped["format"]) is Format
        assert dumped["items"] == report.items and dumped["items"] is not report.items


@pytest.mark.parametrize("name", ["strict", "candidates", "decoded"])
def test_a_dump_keeps_tuples_and_warns_nothing(name: str) -> None:
    report = reports()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dumped = report.model_dump()
        report.model_dump_json()
    assert all(isinstance(dumped[key], tuple) for key in ("writers", "unkept", "candidates"))


@pytest.mark.parametrize("name", list(reports()))
def test_equal_after_pickle_and_validation(name: str) -> None:
    report = reports()[name]
    cls = type(report)
    assert pickle.loads(pickle.dumps(report)) == report
    assert cls.model_validate(report.model_dump()) == report
    assert cls.model_validate_json(report.model_dump_json()) == report
    assert report == reports()[name] and report != object()


def test_compact_recoveries_equal_the_same_list() -> None:
    compact = reports()["compact"]
    assert isinstance(compact, Decoded)
    as_list = Decoded(items=compact.items, format=compact.format,
                      recoveries=list(compact.recoveries))
    assert as_list == compact and compact == as_list
    assert as_list != Decoded(items=compact.items, format=compact.format,
                              recoveries=list(compact.recoveries)[:2])
    assert not compact.lossless and not compact.complete
    listed = reports()["listed"]
    assert isinstance(listed, Decoded)
    assert not listed.lossless and listed.complete


def test_a_candidate_reads_its_items_once_when_first_used() -> None:
    calls: list[int] = []

    def read() -> list[dict[str, Any]]:
        calls.append(1)
        return [{"role": "user", "content": "x"}]

    candidate = Candidate(reading="later", items=read)
    assert calls == []
    assert candidate.items == candidate.items == [{"role": "user", "content": "x"}]
    assert calls == [1]
    assert candidate == Candidate(reading="later", items=[{"role": "user", "content": "x"}])
    assert candidate != Candidate(reading="other", items=[{"role": "user", "content": "x"}])
    with pytest.raises(TypeError):
        hash(candidate)


def test_the_defaults_of_a_decoded() -> None:
    decoded = Decoded(items=[], format=Format.CURRENT)
    assert (decoded.recoveries, decoded.writers, decoded.unkept, decoded.candidates) == (
        [], (), (), ())
    assert decoded.lossless and decoded.complete


def test_attributes_and_hashing() -> None:
    recovery = Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare", lost=True)
    assert (recovery.line, recovery.kind, recovery.message, recovery.lost) == (
        2, RecoveryKind.BARE_ROLE, "bare", True)
    assert Recovery(line=1, kind=RecoveryKind.RENUMBERED, message="m").lost is False
    assert hash(recovery) == hash(reports()["recovery"]) and recovery == reports()["recovery"]
    assert recovery != Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare")
    with pytest.raises((AttributeError, TypeError, ValueError)):
        recovery.line = 3
    decoded = Decoded(items=[], format=Format.CURRENT)
    with pytest.raises(TypeError):
        hash(decoded)
    with pytest.raises(AttributeError):
        decoded.writers = ()


def test_validation_checks_and_converts() -> None:
    decoded = Decoded.model_validate({
        "items": [{"a": 1}], "format": "legacy-0.6-0.17.0",
        "recoveries": [{"line": 1, "kind": "bare_role", "message": "m"}],
        "writers": ["w"], "unkept": ["u"],
        "candidates": [{"reading": "r", "items": [{"b": 2}]}]})
    assert decoded.format is Format.LEGACY_0_6
    assert decoded.recoveries == [Recovery(line=1, kind=RecoveryKind.BARE_ROLE, message="m")]
    assert (decoded.writers, decoded.unkept) == (("w",), ("u",))
    assert decoded.candidates == (Candidate(reading="r", items=[{"b": 2}]),)
    with pytest.raises(ValueError):
        Decoded.model_validate({"items": [], "format": "no such format"})
    with pytest.raises(ValueError):
        Recovery.model_validate({"line": "x", "kind": "bare_role", "message": "m"})
    with pytest.raises(ValueError):
        Decoded.model_validate({"items": [], "format": "current",
                                "candidates": [{"reading": "r"}]})
    with pytest.raises(ValueError):  # a list of formats: the shape before writers existed
        Decoded.model_validate({"items": [], "format": "legacy", "candidates": ["current"]})


def _write_fixture() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        found = {name: dumps(report) for name, report in reports().items()}
    FIXTURE.write_text(json.dumps(found, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _write_fixture()
    sys.exit(0)
