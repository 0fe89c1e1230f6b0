"""A backup copy cut short is never restored as if whole: on every store, a restore from
a copy that lost its last records (its closing record with them, at a line end or in
the middle of a line) reports the records missing and exits 1, whichever path (a
SQLite file's path or its ``sqlite:///`` URL) wrote or restores it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.every_store import AnyStore, every_store
from tests.support.migrate_support import CRAFTED, PLAIN, require_legacy_reader
from tests.support.server_stores import run_migrate


def _sessions() -> dict[str, list[dict[str, Any]]]:
    return {f"s-{n}": [PLAIN[0], *CRAFTED[:4], PLAIN[1]] for n in range(3)}


@pytest.fixture(params=["sqlite-file", "jsonl", "sqlite-url"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AnyStore]:
    require_legacy_reader()
    with every_store(request.param, tmp_path) as found:
        found.fill(_sessions())
        yield found


def _cut(backup: Path, into: Path, drop: int, mid_line: bool) -> None:
    """The backup without its last ``drop`` lines (its closing record among them, for a
    file store), and with ``mid_line`` half of the next one."""
    lines = backup.read_bytes().split(b"\n")[:-1]
    kept = lines[:-drop]
    data = b"".join(line + b"\n" for line in kept)
    if mid_line:
        data += lines[-drop][: len(lines[-drop]) // 2]
    into.write_bytes(data)


@pytest.mark.parametrize("mid_line", [False, True], ids=["line-end", "mid-line"])
@pytest.mark.parametrize("through", ["as-migrated", "other-path"])
def test_a_copy_cut_short_reports_missing_records_and_exits_1(
        store: AnyStore, tmp_path: Path, mid_line: bool, through: str) -> None:
    backup, cut = tmp_path / "backup.jsonl", tmp_path / "cut.jsonl"
    before = store.rows()
    report = run_migrate(store.target, "--backup-file", str(backup), *store.options)
    assert report["migrated"] >= 6, report
    records = sum(1 for line in backup.read_bytes().split(b"\n") if b'"key"' in line)
    _cut(backup, cut, 3, mid_line)
    target = store.target
    if through == "other-path" and store.path is not None and store.kind != "jsonl":
        target = str(store.path) if store.kind == "sqlite-url" else f"sqlite:///{store.path}"
    restored = run_migrate(target, "--restore", str(cut), *store.options, check_code=1)
    assert restored["missing"] >= 1, restored
    assert restored["restored"] < records
    if store.kind != "sqlite-url":  # a file store changes after its closing record only
        assert not any("before its row was changed" in warning
                       for warning in restored.get("warnings", [])), restored
    # the complete file puts back the rest
    run_migrate(store.target, "--restore", str(backup), *store.options)
    assert store.rows() == before


def test_a_whole_file_store_backup_restores_with_exit_0(store: AnyStore,
                                                        tmp_path: Path) -> None:
    backup = tmp_path / "backup.jsonl"
    before = store.rows()
    run_migrate(store.target, "--backup-file", str(backup), *store.options)
    report = run_migrate(store.target, "--restore", str(backup), *store.options, check_code=0)
    assert report["missing"] == 0 and store.rows() == before
    assert json.loads(backup.read_bytes().split(b"\n")[0])["handoff_codec_backup"] == 1
