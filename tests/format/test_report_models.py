"""The report types keep their public shape: fields, equality, pickling and dumps.

``tests/fixtures/report_dumps.json`` holds what ``model_dump``,
``model_dump_json`` and ``repr`` gave for the reports built below when
``Decoded`` and ``Recovery`` were pydantic models; the cheaper classes must
give the same. Regenerate only on purpose: ``python -m tests.format.test_report_models``.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from handoff_codec import Decoded, Format, Recovery, RecoveryKind
from handoff_codec.format.report import Note, Recoveries

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


def reports() -> dict[str, Decoded | Recovery]:
    """Reports of every shape: strict, lenient with a list, lenient with compact recoveries."""
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "hi \u2028 \"quoted\" \u00e9\U0001f600"},
        {"role": "assistant", "content": ""},
        {"type": "x", "a": [1, 2.5, None, True, {"b": "c"}]},
    ]
    listed = [
        Recovery(line=1, kind=RecoveryKind.LEGACY_PREAMBLE, message="the short legacy preamble"),
        Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare", lost=True),
    ]
    return {
        "strict": Decoded.model_construct(items=items, format=Format.CURRENT, recoveries=[]),
        "validated": Decoded(items=items[:1], format=Format.LEGACY_0_6),
        "listed": Decoded(items=items, format=Format.LEGACY_0_17_1, recoveries=listed),
        "compact": Decoded.model_construct(items=items, format=Format.LEGACY_0_6,
                                           recoveries=_compact()),
        "empty": Decoded.model_construct(items=[], format=Format.CURRENT, recoveries=[]),
        "recovery": listed[1],
    }


def dumps(report: Decoded | Recovery) -> dict[str, Any]:
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


@pytest.mark.parametrize("name", list(reports()))
def test_dumps_are_as_they_were(name: str) -> None:
    assert dumps(reports()[name]) == _expected()[name]


@pytest.mark.parametrize("name", list(reports()))
def test_python_dump_keeps_the_enums(name: str) -> None:
    report = reports()[name]
    dumped = report.model_dump()
    # str enums equal their values; a tuple field dumps as a tuple, as pydantic's does
    assert isinstance(dumped.get("candidates", ()), tuple)
    listed = {key: list(value) if isinstance(value, tuple) else value
              for key, value in dumped.items()}
    assert listed == _expected()[name]["model_dump_json"]
    recoveries = [dumped] if isinstance(report, Recovery) else dumped["recoveries"]
    assert isinstance(recoveries, list)
    assert all(type(r) is dict and isinstance(r["kind"], RecoveryKind) for r in recoveries)
    if isinstance(report, Decoded):
        assert type(dumped["format"]) is Format
        assert dumped["items"] == report.items and dumped["items"] is not report.items


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


def test_attributes_and_hashing() -> None:
    recovery = Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare", lost=True)
    assert (recovery.line, recovery.kind, recovery.message, recovery.lost) == (
        2, RecoveryKind.BARE_ROLE, "bare", True)
    assert Recovery(line=1, kind=RecoveryKind.RENUMBERED, message="m").lost is False
    assert hash(recovery) == hash(reports()["recovery"]) and recovery == reports()["recovery"]
    assert recovery != Recovery(line=2, kind=RecoveryKind.BARE_ROLE, message="bare")
    with pytest.raises((AttributeError, TypeError, ValueError)):
        recovery.line = 3  # type: ignore[misc]
    decoded = Decoded(items=[], format=Format.CURRENT)
    assert decoded.recoveries == [] and decoded.lossless and decoded.complete
    with pytest.raises(TypeError):
        hash(decoded)


def test_validation_checks_and_converts() -> None:
    decoded = Decoded.model_validate({"items": [{"a": 1}], "format": "legacy-0.6-0.17.0",
                                      "recoveries": [{"line": 1, "kind": "bare_role",
                                                      "message": "m"}]})
    assert decoded.format is Format.LEGACY_0_6
    assert decoded.recoveries == [Recovery(line=1, kind=RecoveryKind.BARE_ROLE, message="m")]
    with pytest.raises(ValueError):
        Decoded.model_validate({"items": [], "format": "no such format"})
    with pytest.raises(ValueError):
        Recovery.model_validate({"line": "x", "kind": "bare_role", "message": "m"})


def _write_fixture() -> None:
    FIXTURE.write_text(json.dumps({name: dumps(report) for name, report in reports().items()},
                                  indent=1, ensure_ascii=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _write_fixture()
    sys.exit(0)
