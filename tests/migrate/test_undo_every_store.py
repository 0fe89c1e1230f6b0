"""One undo for every store: ``migrate --restore BACKUP STORE`` puts back each row the
migration changed, byte for byte, keeps every row written since, and checks each
record before it writes anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.every_store import FILE_KINDS, KINDS, AnyStore, every_store
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    envelope,
    require_legacy_reader,
    run_cli_here,
)
from tests.support.server_stores import run_migrate

LEGACY = CRAFTED


def _sessions() -> dict[str, list[dict[str, Any]]]:
    return {"s-0": [PLAIN[0], LEGACY[0], PLAIN[1], LEGACY[1]],
            "s-1": [LEGACY[2], PLAIN[2], LEGACY[3], PLAIN[3]]}


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AnyStore]:
    require_legacy_reader()
    with every_store(request.param, tmp_path) as found:
        found.fill(_sessions())
        yield found


def _migrate(store: AnyStore, backup: Path, *more: str) -> dict[str, Any]:
    report = run_migrate(store.target, "--backup-file", str(backup), *store.options, *more)
    assert report["migrated"] >= 4 and report["backups"] == [str(backup)], report
    return report


def test_restore_puts_back_every_migrated_row_and_keeps_what_agents_wrote_since(
        store: AnyStore, tmp_path: Path) -> None:
    before = store.rows()
    backup = tmp_path / "backup.jsonl"
    _migrate(store, backup)
    migrated = store.rows()
    changed = sorted(key for key in before if before[key] != migrated[key])
    assert len(changed) >= 4
    # Agents go on: new rows in an existing session and in a new one, and one migrated
    # row rewritten by its application.
    store.append({"s-0": [{"role": "user", "content": "written after the run"}],
                  "s-new": [PLAIN[0], {"role": "user", "content": "a new session"}]})
    rewritten = json.dumps({"role": "user", "content": "an agent's own edit"}).encode()
    store.change(changed[0], rewritten)
    written_since = {key: value for key, value in store.rows().items() if key not in before}
    assert len(written_since) == 3

    result = run_cli_here(store.target, "--restore", str(backup), *store.options, "--json",
                          check_code=1)
    report = json.loads(result.stdout)
    assert (report["restored"], report["changed_since"]) == (len(changed) - 1, 1), report
    after = store.rows()
    for key in before:  # every migrated row byte for byte, but the one rewritten since
        assert after[key] == (rewritten if key == changed[0] else before[key]), key
    assert {key: after[key] for key in written_since} == written_since  # agents' rows kept
    assert after.keys() == before.keys() | written_since.keys()


def test_a_second_run_into_the_same_backup_restores_each_row_to_its_oldest_value(
        store: AnyStore, tmp_path: Path) -> None:
    """A finished run, then a --restore-empty run: two records for some rows, one backup
    file for server stores (--resume into it) and two for file stores."""
    with_placeholder = {"role": "assistant", "content": envelope(
        "1. user: (empty)", "2. assistant", "3. user: ok")}  # legacy, then a placeholder
    store.append({"s-2": [{"role": "user", "content": "."}, with_placeholder]})
    before = store.rows()
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    _migrate(store, first)
    if store.kind in FILE_KINDS:
        again = run_migrate(store.target, "--restore-empty", "--backup-file", str(second))
        backups = ["--restore", str(first), "--restore", str(second)]
    else:
        again = run_migrate(store.target, "--restore-empty", "--resume", "--backup-file",
                            str(first), *store.options)
        backups = ["--restore", str(first)]
    assert again["placeholders"]["turns"] >= 1 and store.rows() != before
    report = run_migrate(store.target, *backups, *store.options, check_code=0)
    assert report["changed_since"] == 0 and store.rows() == before


def _records(backup: Path) -> list[bytes]:
    return backup.read_bytes().split(b"\n")[:-1]


@pytest.mark.parametrize("damage", ["edited", "reordered", "foreign"])
def test_an_edited_reordered_or_foreign_record_is_refused_before_anything_is_written(
        store: AnyStore, tmp_path: Path, damage: str) -> None:
    backup = tmp_path / "backup.jsonl"
    _migrate(store, backup)
    migrated = store.rows()
    lines = _records(backup)
    number = next(n for n, line in enumerate(lines, 1) if b'"key"' in line and n > 3)
    if damage == "edited":
        record = json.loads(lines[number - 1])
        record["old"] = record["old"].replace("user", "admin", 1)
        lines[number - 1] = json.dumps(record).encode()
    elif damage == "reordered":
        lines[number - 2], lines[number - 1] = lines[number - 1], lines[number - 2]
        number -= 1
    else:
        other = tmp_path / "other.jsonl"
        other_store = tmp_path / "other"
        other_store.mkdir()
        with every_store("jsonl", other_store) as elsewhere:
            elsewhere.fill(_sessions())
            _migrate(elsewhere, other)
        lines[number - 1] = _records(other)[number - 1]
    backup.write_bytes(b"\n".join(lines) + b"\n")
    result = run_cli_here(store.target, "--restore", str(backup), *store.options, "--json")
    assert result.returncode == 2, (result.stdout, result.stderr)
    message = json.loads(result.stdout)["error"]["message"]
    assert f"{backup}:{number}:" in message, message
    assert store.rows() == migrated  # nothing written


def test_a_backup_of_another_store_is_refused_unless_forced(
        store: AnyStore, tmp_path: Path) -> None:
    other = tmp_path / "other-backup.jsonl"
    place = tmp_path / "other"
    place.mkdir()
    with every_store("sqlite-file" if store.kind == "jsonl" else "jsonl", place) as elsewhere:
        elsewhere.fill(_sessions())
        _migrate(elsewhere, other)
    before = store.rows()
    backup = tmp_path / "backup.jsonl"
    _migrate(store, backup)
    migrated = store.rows()
    result = run_cli_here(store.target, "--restore", str(other), *store.options, "--json")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "not of this store" in json.loads(result.stdout)["error"]["message"]
    assert store.rows() == migrated
    run_migrate(store.target, "--restore", str(backup), *store.options, check_code=0)
    assert store.rows() == before


def test_a_sqlite_file_and_its_url_are_one_store(tmp_path: Path) -> None:
    """A backup written through the file's path restores through its URL, and back."""
    require_legacy_reader()
    with every_store("sqlite-file", tmp_path) as store:
        store.fill(_sessions())
        before = store.rows()
        url = f"sqlite:///{store.path}"
        by_path, by_url = tmp_path / "by-path.jsonl", tmp_path / "by-url.jsonl"
        run_migrate(store.target, "--backup-file", str(by_path))
        run_migrate(url, "--restore", str(by_path), check_code=0)
        assert store.rows() == before
        run_migrate(url, "--backup-file", str(by_url))
        run_migrate(str(store.path), "--restore", str(by_url), check_code=0)
        assert store.rows() == before


def test_a_restore_of_one_file_when_the_store_records_another_is_not_a_success(
        tmp_path: Path) -> None:
    """A run wrote backup A; a later run (a resume with another --backup-file) wrote B:
    restoring B alone leaves A's rows migrated, so it exits 1, says so and keeps the
    store's migration state; restoring both gives back every row."""
    require_legacy_reader()
    with every_store("sqlite-url", tmp_path) as store:
        store.fill(_sessions())
        before = store.rows()
        first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        _migrate(store, first)
        store.append({"s-3": [LEGACY[0]]})
        before.update({k: v for k, v in store.rows().items() if k not in before})
        run_migrate(store.target, "--resume", "--backup-file", str(second))
        result = run_cli_here(store.target, "--restore", str(second), "--json", check_code=1)
        assert "another backup file" in result.stderr and store.rows() != before
        run_migrate(store.target, "--restore", str(first), "--restore", str(second),
                    check_code=0)
        assert store.rows() == before


@pytest.mark.parametrize("kind", ["postgresql", "mariadb", "redis", "sqlite-file", "jsonl"])
def test_a_restore_while_a_migration_holds_the_store_is_refused(
        kind: str, tmp_path: Path) -> None:
    import fcntl
    import sqlite3
    import subprocess
    import time

    from tests.support.migrate_support import cli_command, cli_env

    require_legacy_reader()
    with every_store(kind, tmp_path) as store:
        store.fill({f"s-{n}": [LEGACY[n % 4]] * 6 for n in range(12)})
        before = store.rows()
        backup = tmp_path / "first.jsonl"
        _migrate(store, backup)
        migrated = store.rows()
        restorable = [key for key in before if before[key] != migrated[key]]
        store.append({"late": [LEGACY[0]] * 30})
        running = None
        holder: Any = None
        if kind == "sqlite-file":  # a migration holds the write lock for its whole run
            holder = sqlite3.connect(store.target, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
        elif kind == "jsonl":  # and the file's migration lock
            holder = open(store.target, "rb")  # noqa: SIM115
            fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        else:
            second = tmp_path / "second.jsonl"
            running = subprocess.Popen(
                cli_command(store.target, "--batch-size", "25", "--pause", "3",
                            "--backup-file", str(second), *store.options),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=cli_env())
            deadline = time.monotonic() + 60
            while not second.exists():
                assert running.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
        try:
            result = run_cli_here(store.target, "--restore", str(backup), *store.options,
                                  "--json")
            assert result.returncode == 1, (result.stdout, result.stderr)
            assert "nothing" in json.loads(result.stdout)["error"]["message"]
            now = store.rows()
            assert [now[key] for key in restorable] == [migrated[key] for key in restorable]
        finally:
            if running is not None:
                running.kill()
                running.wait()
            elif kind == "sqlite-file":
                holder.execute("ROLLBACK")
                holder.close()
            else:
                holder.close()


def test_counts_after_a_kill_and_a_resume_are_rows_not_records(tmp_path: Path) -> None:
    """A batch backed up by a killed run, then again by its resume: each row is counted
    once as restored, the earlier record as already old."""
    from tests.migrate.test_store_backup import _kill_after_a_batch, _size
    from tests.support.migrate_support import cli_command, cli_env
    from tests.support.server_stores import bulk_rows

    require_legacy_reader()
    with every_store("postgresql", tmp_path) as store:
        store.inner.bulk(bulk_rows(900, legacy_every=3))
        original = store.rows()
        backup = tmp_path / "backup.jsonl"
        _kill_after_a_batch(cli_command(store.target, "--batch-size", "20", "--pause", "0.05",
                                        "--backup-file", str(backup)),
                            lambda: _size(backup) > 4000, env=cli_env())
        run_migrate(store.target, "--resume", "--backup-file", str(backup))
        changed = sum(1 for key, value in store.rows().items() if value != original[key])
        report = run_migrate(store.target, "--restore", str(backup), check_code=0)
        assert report["restored"] == changed, report
        assert report["restored"] + report["already_old"] == report["rows"]
        assert store.rows() == original
