"""Rows that appear behind the scan (an old app still writing legacy rows) are migrated too.

Redis: legacy rows appended to lists the run has already read. SQL: a row whose
id was taken before the scan passed it, committed after.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.migrate import RowRule
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    cli_command,
    cli_env,
    require_legacy_reader,
)
from tests.support.server_stores import RedisStore, SqlStore
from tests.support.services import mysql_database, postgres_database, redis_prefix

LEGACY = CRAFTED[0]
HEADER = 200  # more than a backup file's header line: a run that wrote more ran a batch


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _start(url: str, backup: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(cli_command(url, "--batch-size", "25", "--pause", "0.2",
                                        "--backup-file", str(backup), "--json", *options),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env())


def _wait_for_a_batch(proc: subprocess.Popen[str], backup: Path) -> None:
    deadline = time.monotonic() + 60
    while _size(backup) <= HEADER:
        assert proc.poll() is None and time.monotonic() < deadline, "no batch was run"
        time.sleep(0.01)


def _legacy_left(rows: dict[Any, bytes]) -> list[Any]:
    return [key for key, value in rows.items() if RowRule()(value).new is not None]


def test_redis_rows_appended_behind_the_scan_are_migrated(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        store = RedisStore(url, prefix)
        sessions = {f"s{n}": [LEGACY, PLAIN[0]] * 5 for n in range(20)}
        store.fill(sessions)
        backup = tmp_path / "b.jsonl"
        proc = _start(url, backup, "--key-prefix", prefix)
        _wait_for_a_batch(proc, backup)
        # The lists of the first batch are behind the scan now; the others are not.
        store.fill({session_id: [LEGACY, LEGACY, PLAIN[1]] for session_id in sessions})
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        report = json.loads(out)
        rows = store.rows()
        assert len(rows) == 20 * 13
        assert _legacy_left(rows) == []
        assert report["migrated"] == 20 * 7 and report["untouched"] == 0


SQL = {"postgresql": postgres_database, "mysql": mysql_database}


@pytest.mark.parametrize("kind", sorted(SQL))
def test_sql_rows_committed_out_of_id_order_are_migrated(kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    import sqlalchemy as sa

    database: Callable[[], AbstractContextManager[str]] = SQL[kind]
    with database() as url:
        store = SqlStore(url)
        store.fill({"s": [LEGACY] * 5})  # ids 1 to 5, and the SDK's tables
        engine = sa.create_engine(store.sync_url)
        insert = sa.text("INSERT INTO agent_messages (session_id, message_data) "
                         "VALUES ('s', :data)")
        legacy = json.dumps(LEGACY)
        late = engine.connect()
        try:
            late.execute(insert, {"data": legacy})  # takes id 6, not committed yet
            with engine.begin() as conn:
                conn.execute(insert, [{"data": legacy}] * 300)  # ids 7 to 306, committed
            backup = tmp_path / "b.jsonl"
            proc = _start(url, backup)
            _wait_for_a_batch(proc, backup)  # the scan is past id 6
            late.commit()
        finally:
            late.close()
            engine.dispose()
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        rows = store.rows()
        assert len(rows) == 306
        assert _legacy_left(rows) == []
        assert json.loads(out)["migrated"] == 306


def test_redis_rows_appended_before_a_resume_are_migrated_by_it(tmp_path: Path) -> None:
    """A run is killed once it is past its first SCAN pages; legacy rows are appended to
    every list (the lists it read among them); the --resume migrates all of them."""
    require_legacy_reader()
    import signal

    import redis

    from tests.support.server_stores import run_migrate

    with redis_prefix() as (url, prefix):
        store = RedisStore(url, prefix)
        sessions = {f"s{n}": [LEGACY, PLAIN[0]] for n in range(400)}
        store.bulk([(sid, json.dumps(item)) for sid, items in sessions.items()
                    for item in items])
        backup = tmp_path / "b.jsonl"
        proc = _start(url, backup, "--key-prefix", prefix, "--lock-ttl", "1")
        deadline = time.monotonic() + 60
        # More backed-up rows than one SCAN page of lists (COUNT 100) holds.
        while (len(backup.read_bytes().splitlines()) if backup.exists() else 0) < 160:
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended early"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        store.bulk([(sid, json.dumps(LEGACY)) for sid in sessions])
        assert _legacy_left(store.rows())
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 10
        while client.exists(f"handoff-codec:migrate:{prefix}:lock:0/1"):  # until it expires
            assert time.monotonic() < deadline, "the killed run's lock did not expire"
            time.sleep(0.05)
        client.close()
        final = run_migrate(url, "--key-prefix", prefix, "--backup-file", str(backup),
                            "--resume")
        assert final["untouched"] == 0
        assert len(store.rows()) == 400 * 3
        assert _legacy_left(store.rows()) == []
