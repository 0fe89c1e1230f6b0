"""docs/conformance.md holds the table conformance/matrix.py writes, for the suite as it is.

The release rows are not re-measured (that installs 11 releases); the test
checks their format and totals, and recomputes our two rows in-process.
"""

from __future__ import annotations

import re

from .support import SUITE, decoder, load, runner

matrix = load("matrix.py", "conformance_matrix")
DOC = SUITE.parent / "docs" / "conformance.md"


def table_rows() -> list[list[str]]:
    doc = DOC.read_text(encoding="utf-8")
    assert doc.count(matrix.BEGIN) == 1 and doc.count(matrix.END) == 1
    lines = doc.split(matrix.BEGIN, 1)[1].split(matrix.END, 1)[0].strip().splitlines()
    assert lines[0] == matrix.HEADER
    assert matrix.table([]).splitlines()[1] == lines[1]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert matrix.table(lines[2:]) == "\n".join(lines)
    return rows


def totals() -> list[int]:
    vectors = runner.discover(SUITE, "decoder", matrix.CATEGORIES)
    return [sum(v.category == c for v in vectors) for c in matrix.CATEGORIES]


def test_the_table_has_a_row_per_reader_in_order() -> None:
    readers = [row[0] for row in table_rows()]
    assert readers == (["handoff-codec (lenient)", "handoff-codec --strict"]
                       + [f"openai-agents {v}" for v in matrix.RELEASES]
                       + [name for name, _ in matrix.NOT_BUILT])


def test_every_measured_cell_is_passed_over_the_suites_total() -> None:
    want = totals()
    for row in table_rows()[:2 + len(matrix.RELEASES)]:
        assert len(row) == 1 + len(matrix.CATEGORIES), row
        for cell, total in zip(row[1:], want, strict=True):
            match = re.fullmatch(r"(\d+)/(\d+)", cell)
            assert match and int(match.group(2)) == total and int(match.group(1)) <= total, row


def test_rows_of_ports_not_built_say_why() -> None:
    rows = table_rows()[2 + len(matrix.RELEASES):]
    for row, (name, why) in zip(rows, matrix.NOT_BUILT, strict=True):
        assert row == [name, f"not built here: {why}", "-", "-"]


def test_our_rows_are_what_our_decoder_scores_now() -> None:
    vectors = runner.discover(SUITE, "decoder", matrix.CATEGORIES)
    rows = table_rows()
    for row, strict in ((rows[0], False), (rows[1], True)):
        def call(data: bytes, strict: bool = strict) -> tuple[int, bytes, bytes]:
            code, out = decoder.decode(data, strict=strict)
            return code, out, b""
        result = runner.run(vectors, call, "decoder")
        assert row[1:] == matrix.cells(result), row
