"""After something went wrong: a backup cut short, a full disk, and the way back from each."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support.migrate_support import require_legacy_reader, run_cli_here
from tests.support.server_stores import SqlStore, bulk_rows, run_migrate


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real filesystem of 192 KiB (tmpfs), for a backup file that fills it up."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=192k,mode=0700", "tmpfs",
                              str(where)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _store(tmp_path: Path, rows: int = 600) -> tuple[SqlStore, str, dict[Any, bytes]]:
    url = f"sqlite:///{tmp_path / f's-{uuid.uuid4().hex[:6]}.db'}"
    store = SqlStore(url)
    store.bulk(bulk_rows(rows, legacy_every=3))
    return store, url, store.rows()


def _changed(store: SqlStore, original: dict[Any, bytes]) -> int:
    return sum(value != original[key] for key, value in store.rows().items())


class Filled(NamedTuple):
    store: SqlStore
    url: str
    original: dict[Any, bytes]
    backup: Path
    failed: Any  # the run's result
    migrated: int  # rows a whole run changes


def _fill_the_disk(tmp_path: Path, disk: Path) -> Filled:
    """A run whose backup (about 280 KB) fills the 192 KiB disk part-way."""
    store, url, original = _store(tmp_path, rows=1500)
    migrated = run_migrate(url, "--dry-run", check_code=0)["would_migrate"]
    backup = disk / "backup.jsonl"
    failed = run_cli_here(url, "--batch-size", "10", "--backup-file", str(backup))
    return Filled(store, url, original, backup, failed, migrated)


def test_a_full_disk_says_what_was_committed_and_the_way_on(
        tmp_path: Path, small_disk: Path) -> None:
    require_legacy_reader()
    store, url, original, backup, failed, migrated = _fill_the_disk(tmp_path, small_disk)
    committed = _changed(store, original)
    assert failed.returncode == 1 and committed > 0
    [line] = failed.stderr.strip().splitlines()
    assert "No space left on device" in line and "nothing was written" not in line
    assert f"committed {committed} rows" in line
    assert "--resume" in line and f"--restore {backup}" in line
    # Room is made (the backup moves to a larger disk): --resume goes on from the checkpoint.
    moved = tmp_path / "backup.jsonl"
    moved.write_bytes(backup.read_bytes())
    final = run_migrate(url, "--resume", "--backup-file", str(moved), check_code=0)
    assert final["untouched"] == 0 and _changed(store, original) == migrated
    restored = run_migrate(url, "--restore", str(moved), check_code=0)
    assert restored["changed_since"] == 0 and restored["missing"] == 0
    assert store.rows() == original


@pytest.mark.parametrize("way", ["restore", "resume"])
def test_a_torn_last_record_is_skipped_by_restore_and_cut_off_by_resume(
        way: str, tmp_path: Path, small_disk: Path) -> None:
    """A full disk cut the last record in half: its row was never changed."""
    require_legacy_reader()
    store, url, original, backup, failed, migrated = _fill_the_disk(tmp_path, small_disk)
    committed = _changed(store, original)
    assert failed.returncode == 1 and committed > 0
    torn = backup.read_bytes()
    assert not torn.endswith(b"\n")
    moved = tmp_path / "backup.jsonl"  # room is made: the file moves to a larger disk
    moved.write_bytes(torn)
    if way == "resume":
        resumed = run_cli_here(url, "--resume", "--batch-size", "10", "--backup-file",
                               str(moved), check_code=0)
        [note] = resumed.stderr.strip().splitlines()
        assert "cut short" in note and "appended after the last whole record" in note
        assert moved.read_bytes().startswith(torn[:torn.rfind(b"\n") + 1])
        assert _changed(store, original) == migrated
    restored = run_cli_here(url, "--restore", str(moved), "--json", check_code=0)
    report = json.loads(restored.stdout)
    assert report["restored"] == (committed if way == "restore" else migrated)
    assert report["missing"] == 0 and report["changed_since"] == 0
    if way == "restore":
        [warning] = restored.stderr.strip().splitlines()
        assert "is a record cut short" in warning and warning.endswith("skipped")
    assert store.rows() == original


def test_a_torn_record_that_is_not_the_last_is_damage(tmp_path: Path) -> None:
    require_legacy_reader()
    store, url, original = _store(tmp_path, rows=30)
    backup = tmp_path / "b.jsonl"
    run_migrate(url, "--backup-file", str(backup), check_code=0)
    lines = backup.read_bytes().split(b"\n")
    lines[3] = lines[3][: len(lines[3]) // 2]
    backup.write_bytes(b"\n".join(lines))
    result = run_cli_here(url, "--restore", str(backup), check_code=2)
    assert "line 4" not in result.stderr or "damaged" in result.stderr
    assert ":4: not JSON; the backup file is damaged" in result.stderr
    assert store.rows() != original


def test_a_backup_cut_short_at_a_line_boundary_is_reported_as_missing_records(
        tmp_path: Path) -> None:
    require_legacy_reader()
    store, url, original = _store(tmp_path, rows=60)
    backup = tmp_path / "b.jsonl"
    run_migrate(url, "--backup-file", str(backup), "--batch-size", "7", check_code=0)
    whole = backup.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(whole.splitlines(keepends=True)[:-3]))  # three records lost
    result = run_cli_here(url, "--restore", str(cut), "--json", check_code=1)
    report = json.loads(result.stdout)
    assert report["missing"] == 3 and report["restored"] == 12 and report["changed_since"] == 0
    assert any("3 records are missing" in line for line in result.stderr.splitlines())
    assert _changed(store, original) == 3
    # The complete file puts back the rest, and is checked against the same record.
    again = run_migrate(url, "--restore", str(backup), check_code=0)
    assert again["missing"] == 0 and again["restored"] == 3 and again["already_old"] == 12
    assert store.rows() == original


def test_a_damaged_checkpoint_is_named_and_a_resume_writes_nothing(tmp_path: Path) -> None:
    require_legacy_reader()
    store, url, original = _store(tmp_path, rows=30)
    store.execute("CREATE TABLE handoff_codec_checkpoints (messages_table VARCHAR(255), "
                  "shard VARCHAR(64), state TEXT, PRIMARY KEY (messages_table, shard))")
    for state in ("[1, 2]", '{"position": 5}', '{"position": 5, "done": false, "report": '
                  '{"rows_scanned": "many"}}', "not json"):
        store.execute("DELETE FROM handoff_codec_checkpoints")
        store.execute("INSERT INTO handoff_codec_checkpoints VALUES ('agent_messages', '0/1', "
                      ":s)", {"s": state})
        result = run_cli_here(url, "--resume", "--backup-file",
                              str(tmp_path / f"{uuid.uuid4().hex}.jsonl"), check_code=2)
        assert "checkpoint of shard 0/1 cannot be read" in result.stderr
        assert store.rows() == original
    # A new run passes over it, and writes its own.
    fresh = run_migrate(url, "--backup-file", str(tmp_path / "fresh.jsonl"), check_code=0)
    assert fresh["migrated"] == _changed(store, original) > 0


def test_a_restore_of_a_file_the_store_no_longer_records_is_not_refused(
        tmp_path: Path) -> None:
    """After --forget the store cannot say what the file held: it is restored as it is."""
    require_legacy_reader()
    store, url, original = _store(tmp_path, rows=30)
    backup = tmp_path / "b.jsonl"
    migrated = run_migrate(url, "--backup-file", str(backup), check_code=0)["migrated"]
    run_migrate(url, "--forget", check_code=0)
    restored = run_migrate(url, "--restore", str(backup), check_code=0)
    assert restored["restored"] == migrated and store.rows() == original
    assert os.path.exists(backup)


def test_a_full_disk_under_a_sqlite_file_exits_1_and_leaves_it_unchanged(
        tmp_path: Path, small_disk: Path) -> None:
    from tests.support.migrate_support import CRAFTED, PLAIN, make_session_db, snapshot

    require_legacy_reader()
    db = small_disk / "s.db"
    make_session_db(db, {"s": [item for n in range(100) for item in (PLAIN[n % 5],
                                                                      CRAFTED[n % 4])]})
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())  # read later: opening the file here would create its -shm
    free = os.statvfs(small_disk)
    (small_disk / "filler").write_bytes(b"x" * (free.f_bavail * free.f_frsize))  # all of it
    result = run_cli_here(str(db), check_code=1)
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"handoff-codec: error: {db}: ")
    assert line.endswith("; nothing was written")
    (small_disk / "filler").unlink()
    assert snapshot(db) == snapshot(copy)
