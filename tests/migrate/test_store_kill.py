"""SIGKILL a real PostgreSQL migration at random points; resume it to the clean totals."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from pathlib import Path

from handoff_codec.migrate import RowRule
from tests.support.migrate_support import cli_command, cli_env, require_legacy_reader
from tests.support.server_stores import SqlStore, bulk_rows, counts, run_migrate
from tests.support.services import postgres_database

KILLS = 10
HEADER = 200  # more than a backup file's header line: a run that wrote more ran a batch


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except FileNotFoundError:
        return 0


def test_killed_runs_leave_old_or_new_rows_and_resume_to_the_clean_totals(
        tmp_path: Path) -> None:
    require_legacy_reader()
    rows = bulk_rows(4000, legacy_every=4)
    with postgres_database() as clean_url:
        clean_store = SqlStore(clean_url)
        clean_store.bulk(rows)
        clean = run_migrate(clean_url, "--backup-file", str(tmp_path / "clean.jsonl"))
        new = clean_store.rows()
    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(rows)
        old = store.rows()
        assert old.keys() == new.keys() and old != new
        backup = str(tmp_path / "killed.jsonl")
        rng = random.Random(20240610)
        killed = 0
        for attempt in range(KILLS):
            resume = ("--resume",) if attempt else ()
            written = _size(backup)
            # --pause stretches the run, so that every kill lands in the middle of it:
            # after the run has backed up a batch of its own, at a random point.
            proc = subprocess.Popen(cli_command(url, "--batch-size", "25", "--pause", "0.05",
                                                "--backup-file", backup, *resume),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=cli_env())
            deadline = time.monotonic() + 60
            while _size(backup) <= written + HEADER:
                assert proc.poll() is None and time.monotonic() < deadline, "no batch was run"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.6))
            proc.send_signal(signal.SIGKILL)
            killed += proc.wait() == -signal.SIGKILL
            now = store.rows()
            assert now.keys() == old.keys()
            torn = [key for key, value in now.items() if value not in (old[key], new[key])]
            assert not torn
        assert killed == KILLS  # every run was cut short mid-way, none finished
        final = run_migrate(url, "--batch-size", "25", "--backup-file", backup, "--resume")
        assert store.rows() == new
        assert counts(final) == counts(clean)
        assert json.loads(Path(backup).read_text().splitlines()[0])["handoff_codec_backup"] == 1


def test_killed_redis_runs_leave_old_or_new_rows_and_resume_to_the_clean_store(
        tmp_path: Path) -> None:
    """Redis's checkpoint follows each batch's script: a resumed run may read one batch
    again (already current then), never skip a row, so the final store is the clean one."""
    require_legacy_reader()
    from tests.support.server_stores import RedisStore
    from tests.support.services import redis_prefix

    rows = bulk_rows(3000, legacy_every=4)
    with redis_prefix() as (url, prefix):
        store = RedisStore(url, prefix)
        store.bulk(rows)
        old = store.rows()
        backup = str(tmp_path / "killed.jsonl")
        rng = random.Random(7)
        for attempt in range(3):
            resume = ("--resume",) if attempt else ()
            _wait_for_the_lock_to_expire(url, prefix)
            proc = subprocess.Popen(cli_command(url, "--key-prefix", prefix, "--batch-size",
                                                "25", "--lock-ttl", "2", "--backup-file",
                                                backup, *resume),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=cli_env())
            time.sleep(rng.uniform(0.5, 2.0))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            for key, value in store.rows().items():
                assert value == old[key] or RowRule()(old[key]).new == value
        _wait_for_the_lock_to_expire(url, prefix)
        final = run_migrate(url, "--key-prefix", prefix, "--backup-file", backup, "--resume")
        for key, value in store.rows().items():
            assert value == (RowRule()(old[key]).new or old[key])
        assert final["untouched"] == 0 and final["rows_scanned"] >= len(rows)


def _wait_for_the_lock_to_expire(url: str, prefix: str) -> None:
    """Until a killed run's shard lock (``--lock-ttl 2``, renewed every batch) has expired."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while client.exists(f"handoff-codec:migrate:{prefix}:lock:0/1"):
            assert time.monotonic() < deadline, "the lock did not expire"
            time.sleep(0.05)
    finally:
        client.close()
