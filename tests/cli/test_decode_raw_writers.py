"""Issue 39's texts through ``handoff-codec decode FILE``: the exit code of docs/cli.md's
table (0 read losing nothing, 3 a lossy read) and the items and candidates under ``--json``.

The texts, each what a released writer wrote, and their expected readings are
tests/support/raw_writer_examples.py (the API reads them on both engines in
tests/format/read/test_raw_writers.py; the CLI reads with the default engine).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.raw_writer_examples import EXAMPLES, same_items


def in_the_report(value: Any) -> Any:
    """``value`` as the ``--json`` report holds it: one RFC 8259 document, so NaN and
    Infinity are null there (the items on stdout keep them, as ``json.dumps`` writes them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [in_the_report(member) for member in value]
    if isinstance(value, dict):
        return {key: in_the_report(member) for key, member in value.items()}
    return value


def decode(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handoff_codec.cli", "decode", *flags,
                           str(path)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_decode_exits_by_the_table_and_prints_the_written_items(name: str,
                                                                tmp_path: Path) -> None:
    example = EXAMPLES[name]
    path = tmp_path / "summary.txt"
    path.write_text(example.text, encoding="utf-8")
    exit_code = 0 if example.lossless else 3

    result = decode(path, "--json")
    assert result.returncode == exit_code, result.stderr
    document = json.loads(result.stdout)
    assert (document["exit"], document["ok"]) == (exit_code, example.lossless)
    assert same_items(document["items"], in_the_report(example.reading)), document["items"]
    offered = [candidate["items"] for candidate in document["candidates"]]
    for other in example.offered:
        assert any(same_items(items, in_the_report(other)) for items in offered), offered
    if example.unkept_says is not None:
        assert any(example.unkept_says in entry for entry in document["unkept"])
    if not example.lossless:
        assert document["counts"]["lost"] >= 1
        assert any(problem["severity"] == "error" for problem in document["problems"])

    result = decode(path)
    assert result.returncode == exit_code, result.stderr
    assert same_items(json.loads(result.stdout), example.reading)


@pytest.mark.parametrize("name", sorted(name for name in EXAMPLES if EXAMPLES[name].untouched))
def test_migrate_dry_run_leaves_a_turn_taken_from_text(name: str, tmp_path: Path) -> None:
    """``handoff-codec migrate --dry-run`` on a JSON Lines store holding the summary: the
    row is left as it is (a system or developer turn, or an unpaired tool item, read from
    text is never rewritten), and the store is not touched."""
    store = tmp_path / "items.jsonl"
    row = json.dumps({"role": "assistant", "content": EXAMPLES[name].text}) + "\n"
    store.write_text(row, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "handoff_codec.cli", "migrate", str(store),
                             "--dry-run", "--json"], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    report = json.loads(result.stdout)
    assert (report["summaries_found"], report["untouched"], report["would_migrate"]) == (1, 1, 0)
    assert "ambiguous" in report["untouched_rows"][0]["reason"]
    assert store.read_text(encoding="utf-8") == row
