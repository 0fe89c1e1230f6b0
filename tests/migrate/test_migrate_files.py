"""The files around a store: owners, modes, xattrs, open writers, locks, leftovers."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.migrate.stores import StoreRefusal
from handoff_codec.migrate.stores.jsonl import migrate_jsonl
from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
from tests.support.migrate_support import (
    CRAFTED,
    OTHER_UID,
    PLAIN,
    files_beside,
    make_session_db,
    require_legacy_reader,
    require_root,
    run_cli,
    snapshot,
)


def _jsonl(tmp_path: Path, name: str = "history.jsonl") -> Path:
    require_legacy_reader()
    path = tmp_path / name
    path.write_text(json.dumps(PLAIN[0]) + "\n" + json.dumps(CRAFTED[0]) + "\n")
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ------------------------------------------------------------ open writers (item 2)


def test_a_process_holding_the_jsonl_open_for_writing_is_refused(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)
    before = path.read_bytes()
    with path.open("ab") as logger:  # this test process: another process to the CLI
        result = run_cli(str(path), check_code=1)
        assert "open for writing by pid" in result.stderr and "--force" in result.stderr
        assert path.read_bytes() == before and files_beside(path) == ["history.jsonl"]
        dry = run_cli(str(path), "--dry-run", check_code=0)
        assert "warning:" in dry.stdout and "open for writing" in dry.stdout
        logger.write(b'{"role": "user", "content": "before the run"}\n')
        logger.flush()
        forced = run_cli(str(path), "--force", "--json", check_code=0)
        assert json.loads(forced.stdout)["migrated"] == 1
    # What it had written is carried over; it is named as still holding the old file.
    assert "still holds the replaced file open for writing" in forced.stderr
    assert path.read_bytes().endswith(b'{"role": "user", "content": "before the run"}\n')


def test_a_process_reading_the_jsonl_does_not_block_the_run(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)
    with path.open("rb"):
        run_cli(str(path), "--no-backup", check_code=0)


# ------------------------------------------------- private backups, kept owners (items 3, 4)


def test_backup_of_a_private_database_stays_private(tmp_path: Path) -> None:
    require_root()
    require_legacy_reader()
    path = tmp_path / "private.db"
    make_session_db(path, {"s": [PLAIN[0], CRAFTED[0]]})
    os.chown(path, OTHER_UID, OTHER_UID)
    os.chmod(path, 0o600)
    report = migrate_sqlite(path)
    assert report.written and report.backup is not None
    backup = Path(report.backup)
    assert _mode(backup) == 0o600  # the row backup is private to whoever runs it
    assert path.stat().st_uid == OTHER_UID and _mode(path) == 0o600
    os.chmod(path, 0o640)  # a wider mode of the store does not widen its backup
    os.chown(path, OTHER_UID, 0)
    make_session_db(path, {"t": [CRAFTED[1]]})
    second = Path(migrate_sqlite(path).backup or "")
    assert _mode(second) == 0o600


def _set_xattr(path: Path) -> bool:
    try:
        os.setxattr(path, "user.app", b"kept")
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EPERM):
            return False
        raise
    return True


def test_jsonl_keeps_owner_group_mode_and_xattrs(tmp_path: Path) -> None:
    require_root()
    path = _jsonl(tmp_path)
    os.chown(path, OTHER_UID, OTHER_UID)
    os.chmod(path, 0o640)
    has_xattr = _set_xattr(path)
    report = migrate_jsonl(path, backup=False)
    assert report.written
    info = path.stat()
    assert (info.st_uid, info.st_gid, _mode(path)) == (OTHER_UID, OTHER_UID, 0o640)
    if has_xattr:
        assert os.getxattr(path, "user.app") == b"kept"


def test_jsonl_with_other_hard_links_is_refused_unless_forced(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)
    other = tmp_path / "other-name.jsonl"
    os.link(path, other)
    result = run_cli(str(path), check_code=1)
    assert "2 hard links" in result.stderr
    assert files_beside(path) == ["history.jsonl", "other-name.jsonl"]
    run_cli(str(path), "--force", "--no-backup", check_code=0)
    assert other.read_bytes() != path.read_bytes()  # as the refusal said


# ------------------------------------------------------------- leftovers (item 11)


class _FailAfterFirstBatch:
    """A progress bar that fails once rows have been updated: a run failing mid-way."""

    def __call__(self, total: int, unit: str) -> _FailAfterFirstBatch:
        return self

    def update(self, n: int = 1) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        pass


def test_a_failed_run_leaves_no_backup_behind_and_retries_do_not_pile_up(
        tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "sessions.db"
    make_session_db(path, {"s": [CRAFTED[0], PLAIN[0]]})
    state = snapshot(path)
    for _ in range(3):
        with pytest.raises(StoreRefusal, match=r"No space.*nothing was committed"):
            migrate_sqlite(path, progress=_FailAfterFirstBatch())
    assert snapshot(path) == state
    assert not [name for name in files_beside(path) if ".bak-" in name or "partial" in name]


def test_a_read_only_jsonl_is_not_replaced(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    result = run_cli(str(path), check_code=1)
    assert "read-only (mode 0444)" in result.stderr
    assert path.read_bytes() == before and _mode(path) == 0o444
    assert files_beside(path) == ["history.jsonl"]


def test_the_loser_of_two_runs_exits_1(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)
    with path.open("rb") as winner:
        fcntl.flock(winner.fileno(), fcntl.LOCK_EX)  # as a running migration holds it
        result = run_cli(str(path), check_code=1)
        assert "another migration is running" in result.stderr
        assert files_beside(path) == ["history.jsonl"]


def test_a_line_appended_during_the_run_is_carried_over(tmp_path: Path) -> None:
    path = _jsonl(tmp_path)

    class Appender:
        appended = False

        def __call__(self, total: int, unit: str) -> Any:
            return self

        def update(self, n: int = 1) -> None:
            if not self.appended:  # once: the run reads on to the end of the file
                self.appended = True
                with path.open("ab") as file:
                    file.write(b'{"role": "user", "content": "appended"}\n')

        def close(self) -> None:
            pass

    report = migrate_jsonl(path, progress=Appender(), backup=False)
    assert report.written and report.migrated == 1
    assert path.read_bytes().endswith(b'{"role": "user", "content": "appended"}\n')
    assert files_beside(path) == ["history.jsonl"]
