"""What a restore trusts in a backup file: a header without digests is refused unless
``--force``, an edited header breaks the chain, and two backups of one row restore
to its oldest value whatever order they are named in (on every local kind of store)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.every_store import AnyStore, every_store
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    envelope,
    require_legacy_reader,
    run_cli_here,
)
from tests.support.server_stores import run_migrate

LOCAL = ["sqlite-file", "jsonl", "sqlite-url"]


@pytest.fixture(params=LOCAL)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AnyStore]:
    require_legacy_reader()
    with every_store(request.param, tmp_path) as found:
        found.fill({"s-0": [PLAIN[0], *CRAFTED[:4], PLAIN[1]]})
        yield found


def _edit(backup: Path, into: Path, *, drop_digests: bool, header: dict[str, Any] | None,
          record: bool) -> None:
    lines = backup.read_bytes().split(b"\n")
    head = json.loads(lines[0])
    if drop_digests:
        head.pop("digests")
    head.update(header or {})
    lines[0] = json.dumps(head).encode()
    if record:
        for number, line in enumerate(lines):
            if b'"key"' in line:
                entry = json.loads(line)
                entry["old"] = json.dumps({"role": "user", "content": "INJECTED"})
                lines[number] = json.dumps(entry).encode()
                break
    into.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize(("drop_digests", "header", "record"), [
    (True, None, True), (True, None, False), (False, {"created": "2000-01-01T00:00:00Z"},
                                              False),
    (False, {"shard": "0/1", "note": "edited"}, False)],
    ids=["no-digests+edited-record", "no-digests", "edited-created", "added-field"])
def test_a_header_without_digests_or_edited_is_refused_before_anything_is_written(
        store: AnyStore, tmp_path: Path, drop_digests: bool, header: dict[str, Any] | None,
        record: bool) -> None:
    backup, edited = tmp_path / "backup.jsonl", tmp_path / "edited.jsonl"
    before = store.rows()
    run_migrate(store.target, "--backup-file", str(backup), *store.options)
    migrated = store.rows()
    assert migrated != before
    _edit(backup, edited, drop_digests=drop_digests, header=header, record=record)
    report = run_migrate(store.target, "--restore", str(edited), *store.options)
    assert report.get("error") and report.get("exit_code", 2) != 0, report
    assert store.rows() == migrated
    if drop_digests and not record:  # --force restores a file without digests unchecked
        run_migrate(store.target, "--restore", str(edited), "--force", *store.options,
                    check_code=0)
        assert store.rows() == before


@pytest.mark.parametrize("order", ["oldest-first", "newest-first"])
def test_two_backups_of_one_row_restore_its_oldest_value_in_either_order(
        store: AnyStore, tmp_path: Path, order: str) -> None:
    store.append({"s-1": [{"role": "assistant", "content": envelope(
        "1. user: .", "2. assistant", "3. user: ok")}]})
    first, second = tmp_path / "b1.jsonl", tmp_path / "b2.jsonl"
    before = store.rows()
    run_migrate(store.target, "--backup-file", str(first), *store.options)
    run_migrate(store.target, "--restore-empty", "--backup-file", str(second), *store.options)
    assert second.exists()
    named = [first, second] if order == "oldest-first" else [second, first]
    run_migrate(store.target, "--restore", str(named[0]), "--restore", str(named[1]),
                *store.options, check_code=0)
    assert store.rows() == before


def test_a_hard_link_to_a_sqlite_file_is_the_same_store(tmp_path: Path) -> None:
    require_legacy_reader()
    with every_store("sqlite-file", tmp_path) as found:
        found.fill({"s-0": [PLAIN[0], *CRAFTED[:4], PLAIN[1]]})
        assert found.path is not None
        before = found.rows()
        backup = tmp_path / "backup.jsonl"
        run_migrate(found.target, "--backup-file", str(backup))
        link = tmp_path / ("link" + found.path.suffix)
        link.hardlink_to(found.path)
        report = run_migrate(str(link), "--restore", str(backup), check_code=0)
        assert report["restored"] >= 3 and found.rows() == before


@pytest.mark.parametrize("tail", ["-wal", "-shm", "-journal", ""])
def test_a_backup_file_named_as_the_sqlite_files_own_is_refused_saying_why(
        tmp_path: Path, tail: str) -> None:
    with every_store("sqlite-file", tmp_path) as found:
        found.fill({"s-0": [PLAIN[0], *CRAFTED[:4]]})
        before = found.rows()
        result = run_cli_here(found.target, "--backup-file", f"{found.target}{tail}",
                              check_code=2)
        assert "the store's own file" in result.stderr and "exists" not in result.stderr
        assert found.rows() == before
