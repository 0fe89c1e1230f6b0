"""The server stores' backup file: kills and resumes, raw line breaks, paths it must not follow."""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.migrate.test_store_kill import _wait_for_the_lock_to_expire
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    cli_command,
    cli_env,
    require_legacy_reader,
    run_cli_here,
)
from tests.support.server_stores import RedisStore, SqlStore, bulk_rows, run_migrate
from tests.support.services import mysql_database, postgres_database, redis_prefix


@contextmanager
def _server(kind: str) -> Iterator[tuple[Any, str, tuple[str, ...]]]:
    if kind == "postgresql":
        with postgres_database() as url:
            yield SqlStore(url), url, ()
    elif kind == "mariadb":
        with mysql_database() as url:
            yield SqlStore(url), url, ()
    else:
        with redis_prefix() as (url, prefix):
            yield RedisStore(url, prefix), url, ("--key-prefix", prefix, "--lock-ttl", "1")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _wait_for_lock(url: str, options: tuple[str, ...]) -> None:
    """Until a killed Redis run's shard lock has expired (SQL locks go with the connection)."""
    if options:
        _wait_for_the_lock_to_expire(url, options[1])


def _kill_after_a_batch(command: list[str], grown: Any, **popen: Any) -> None:
    """Start ``command``, SIGKILL it once ``grown()`` says it wrote a batch's backup."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            **popen)
    deadline = time.monotonic() + 60
    while not grown():
        assert proc.poll() is None and time.monotonic() < deadline, "no batch was run"
        time.sleep(0.01)
    time.sleep(random.uniform(0.0, 0.3))
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL


@pytest.mark.parametrize("kind", ["postgresql", "mariadb", "redis"])
def test_kill_resume_kill_resume_then_restore_gives_back_every_byte(
        kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    rows = bulk_rows(1500, legacy_every=3)
    with _server(kind) as (store, url, options):
        store.bulk(rows)
        original = store.rows()
        backup = tmp_path / "backup.jsonl"
        for attempt in range(2):
            resume = ("--resume",) if attempt else ()
            _wait_for_lock(url, options)
            grown = _size(backup) + 4000  # a few changed rows past this run's own marker
            _kill_after_a_batch(cli_command(url, "--batch-size", "20", "--pause", "0.05",
                                            "--backup-file", str(backup), *options, *resume),
                                lambda grown=grown: _size(backup) > grown, env=cli_env())
        _wait_for_lock(url, options)
        final = run_migrate(url, "--batch-size", "50", "--backup-file", str(backup),
                            "--resume", *options)
        assert final["untouched"] == 0 and store.rows() != original
        restored = run_migrate(url, "--restore", str(backup), *options, check_code=0)
        assert restored["restored"] > 0 and restored["changed_since"] == 0
        assert store.rows() == original


LINE_BREAKS = "a\u2028b\u2029c\u0085d"


def test_rows_holding_raw_unicode_line_breaks_are_restored(tmp_path: Path) -> None:
    """The rows hold U+2028, U+2029 and U+0085 as themselves, not as JSON escapes."""
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    store.fill({"s": [PLAIN[0]]})
    legacy = json.dumps(CRAFTED[0]["content"])
    raw = [f'{{"role": "assistant", "note": "{LINE_BREAKS}", "content": {legacy}}}',
           f'{{"content": {legacy}, "role": "assistant", "n": "{LINE_BREAKS}"}}']
    for text in raw:
        store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', :v)",
                      {"v": text})
    before = store.rows()
    backup = tmp_path / "b.jsonl"
    real = run_migrate(url, "--backup-file", str(backup))
    assert real["migrated"] == 2 and store.rows() != before
    assert backup.read_bytes().isascii()  # each record is one line, whatever splits lines
    restored = run_migrate(url, "--restore", str(backup), check_code=0)
    assert restored["restored"] == 2 and store.rows() == before


def _legacy_store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 's.db'}"
    SqlStore(url).fill({"s": [CRAFTED[0], PLAIN[0], CRAFTED[1]]})
    return url


def test_a_resume_never_writes_to_a_path_read_from_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checkpoint table is the application's: a backup path planted there is ignored."""
    require_legacy_reader()
    url = _legacy_store(tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = tmp_path / "planted-link"
    planted.symlink_to(victim)
    dangling = tmp_path / "dangling-link"
    dangling.symlink_to(tmp_path / "created-by-the-run")
    store = SqlStore(url)
    store.execute("CREATE TABLE handoff_codec_checkpoints (messages_table VARCHAR(255), "
                  "shard VARCHAR(64), state TEXT, PRIMARY KEY (messages_table, shard))")
    report = {"path": "x", "store": "x", "dry_run": False,
              "backups": [str(planted), str(dangling)]}
    store.execute("INSERT INTO handoff_codec_checkpoints VALUES ('agent_messages', '0/1', :s)",
                  {"s": json.dumps({"position": None, "done": False, "report": report})})
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
    result = run_migrate(url, "--resume")
    assert victim.read_text() == "precious\n"
    assert not os.path.lexists(tmp_path / "created-by-the-run")
    [made] = [p for p in work.iterdir()]
    assert result["migrated"] == 2 and str(made) in result["backups"]
    assert os.path.isabs(result["backups"][-1])
    assert stat.S_IMODE(made.stat().st_mode) == 0o600


def test_the_backup_file_is_never_a_symbolic_link(tmp_path: Path) -> None:
    require_legacy_reader()
    url = _legacy_store(tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    result = run_cli_here(url, "--resume", "--backup-file", str(link), check_code=2)
    assert "symbolic link" in result.stderr
    assert victim.read_text() == "precious\n"
    wide = tmp_path / "wide.jsonl"
    run_migrate(url, "--backup-file", str(wide))
    assert stat.S_IMODE(wide.stat().st_mode) == 0o600


def test_a_resume_finds_its_backup_in_the_local_state(tmp_path: Path) -> None:
    """No --backup-file: the first run's default file (in its working directory) is recorded
    in the state directory, and the resume appends to it, wherever it is started."""
    require_legacy_reader()
    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(bulk_rows(1500, legacy_every=3))
        original = store.rows()
        env = dict(cli_env(), HANDOFF_CODEC_STATE_DIR=str(tmp_path / "state"))
        first = tmp_path / "first"
        first.mkdir()
        _kill_after_a_batch(cli_command(url, "--batch-size", "20", "--pause", "0.05"),
                            lambda: any(_size(p) > 4000 for p in first.iterdir()), env=env,
                            cwd=first)
        [backup] = list(first.iterdir())
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        resumed = subprocess.run(cli_command(url, "--resume", "--json"), capture_output=True,
                                 text=True, env=env, cwd=elsewhere, check=True)
        assert json.loads(resumed.stdout)["backups"] == [str(backup)]
        assert list(elsewhere.iterdir()) == []
        restored = run_migrate(url, "--restore", str(backup), check_code=0)
        assert restored["changed_since"] == 0 and store.rows() == original


def test_a_run_that_changes_nothing_writes_no_backup(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    SqlStore(url).fill({"s": list(PLAIN)})
    backup = tmp_path / "b.jsonl"
    report = run_migrate(url, "--backup-file", str(backup))
    assert not os.path.lexists(backup) and report["backups"] == []


def test_an_existing_backup_file_names_the_flag_to_use(tmp_path: Path) -> None:
    require_legacy_reader()
    url = _legacy_store(tmp_path)
    backup = tmp_path / "b.jsonl"
    backup.write_text("")
    result = run_cli_here(url, "--backup-file", str(backup), check_code=2)
    assert "--backup-file" in result.stderr


def test_a_dangling_link_at_the_predicted_sqlite_backup_name_is_passed_over(
        tmp_path: Path) -> None:
    from datetime import datetime, timedelta, timezone

    from tests.support.migrate_support import make_session_db

    require_legacy_reader()
    db = tmp_path / "sessions.db"
    make_session_db(db, {"s": [CRAFTED[0], PLAIN[0]]})
    now = datetime.now(timezone.utc)
    links = []
    for seconds in range(0, 30):
        stamp = (now + timedelta(seconds=seconds)).strftime("%Y%m%dT%H%M%SZ")
        link = tmp_path / f"sessions.db.bak-{stamp}.partial"
        link.symlink_to(tmp_path / f"nowhere-{seconds}")
        links.append(link)
    report = run_migrate(str(db), check_code=0)
    assert report["migrated"] == 1 and len(report["backups"]) == 1
    assert all(link.is_symlink() and not link.exists() for link in links)


def test_the_backup_format_is_one_header_then_segments(tmp_path: Path) -> None:
    """A resume appends a segment marker, never a second header."""
    from handoff_codec.migrate.stores import read_backup

    require_legacy_reader()
    url = _legacy_store(tmp_path)
    backup = tmp_path / "b.jsonl"
    before = SqlStore(url).rows()
    run_migrate(url, "--backup-file", str(backup))
    SqlStore(url).fill({"s": [CRAFTED[2]]})
    before.update({k: v for k, v in SqlStore(url).rows().items() if k not in before})
    again = run_migrate(url, "--backup-file", str(backup), "--resume")  # a finished shard
    assert again["migrated"] == 1 and again["warnings"]
    lines = [json.loads(line) for line in backup.read_bytes().split(b"\n") if line]
    assert [("handoff_codec_backup" in d, d.get("segment")) for d in lines
            if "key" not in d] == [(True, None), (False, 1), (False, 2)]
    read = read_backup(backup)
    assert read.segments == 2 and [r.segment for r in read.records] == [1, 1, 2]
    assert [r.old for r in read.records] == [before[(1,)], before[(3,)], before[(4,)]]


def test_a_backup_with_a_second_header_from_an_earlier_build_is_restored(
        tmp_path: Path) -> None:
    """Development builds wrote a second header line where a resume started, and no
    digests: such a file is restored with --force only."""
    require_legacy_reader()
    url = _legacy_store(tmp_path)
    store = SqlStore(url)
    before = store.rows()
    backup = tmp_path / "b.jsonl"
    run_migrate(url, "--backup-file", str(backup))
    header, marker, *records = backup.read_bytes().split(b"\n")[:-1]
    assert json.loads(marker)["segment"] == 1
    old = json.loads(header)
    del old["digests"]  # those builds wrote no digests
    header = json.dumps(old).encode()
    backup.write_bytes(b"\n".join([header, records[0], header, *records[1:]]) + b"\n")
    refused = run_cli_here(url, "--restore", str(backup), check_code=2)
    assert "no digests" in refused.stderr and "--force" in refused.stderr
    restored = run_migrate(url, "--restore", str(backup), "--force", check_code=0)
    assert restored["restored"] == 2 and store.rows() == before
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(header + b"\n{not json\n")
    result = run_cli_here(url, "--restore", str(damaged), check_code=2)
    assert "damaged" in result.stderr and "--resume" not in result.stderr
