"""Every stop of a server-store run says what it committed and how to go on.

A table of stops (Ctrl-C, SIGTERM, the server dropping the run's connections),
each on the stores it applies to: the run is stopped for real once it has
committed a batch, and must exit with the stop's code and one line on stderr
(one JSON document under ``--json``) that gives the rows this run committed
(as many as the store shows changed), the ``--resume`` command and the
``--restore FILE`` command. Then the command it gives goes on, and the restore
puts every row back. (A full disk: tests/migrate/test_store_recovery.py.)
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.migrate_support import ROOT, cli_env, require_legacy_reader, run_cli
from tests.support.server_stores import RedisStore, SqlStore, bulk_rows, run_migrate
from tests.support.services import mysql_database, postgres_database, redis_prefix


def _drop_connections(url: str) -> None:
    """The server ends every other connection to the database (a failover, a restart)."""
    import sqlalchemy as sa

    store = SqlStore(url)
    engine = sa.create_engine(store.sync_url)
    try:
        with engine.connect() as conn:
            if store.backend == "postgresql":
                conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                    "current_database() AND pid <> pg_backend_pid()"))
            else:
                ids = conn.execute(sa.text(
                    "SELECT id FROM information_schema.PROCESSLIST WHERE db = DATABASE() AND "
                    "id <> CONNECTION_ID()")).scalars().all()
                for connection in ids:
                    conn.execute(sa.text(f"KILL {int(connection)}"))
            conn.commit()
    finally:
        engine.dispose()


# (store, stop, exit code)
STOPS = [
    ("sqlite-url", "SIGINT", 130),
    ("sqlite-url", "SIGTERM", 143),
    ("postgresql", "SIGINT", 130),
    ("postgresql", "SIGTERM", 143),
    ("postgresql", "drop", 1),
    ("mariadb", "SIGTERM", 143),
    ("mariadb", "drop", 1),
    ("redis", "SIGINT", 130),
    ("redis", "SIGTERM", 143),
]


@contextmanager
def _store(kind: str, tmp_path: Path) -> Iterator[tuple[str, list[str], Any,
                                                         Callable[[], bool]]]:
    """(URL, options, rows(), whether a checkpoint is committed) of a store of 300 rows."""
    rows = bulk_rows(300, legacy_every=2)
    if kind == "redis":
        with redis_prefix() as (url, prefix):
            import redis

            store = RedisStore(url, prefix)
            store.bulk(rows)
            client = redis.Redis.from_url(url)
            key = f"handoff-codec:migrate:{prefix}:checkpoint:0/1"
            try:
                yield url, ["--key-prefix", prefix], store.rows, lambda: bool(client.exists(key))
            finally:
                client.close()
        return
    place = {"postgresql": postgres_database, "mariadb": mysql_database}.get(kind)

    @contextmanager
    def sqlite_url() -> Iterator[str]:
        yield f"sqlite:///{tmp_path / 's.db'}"

    with place() if place else sqlite_url() as url:
        sql = SqlStore(url)
        sql.bulk(rows)

        def checkpointed() -> bool:
            import sqlalchemy as sa

            engine = sa.create_engine(sql.sync_url)
            try:
                with engine.connect() as conn:
                    return bool(conn.execute(sa.text(
                        "SELECT count(*) FROM handoff_codec_checkpoints WHERE shard = '0/1'"
                    )).scalar())
            except sa.exc.DBAPIError:
                return False
            finally:
                engine.dispose()

        yield url, [], sql.rows, checkpointed


@pytest.mark.parametrize(("kind", "stop", "code"), STOPS,
                         ids=[f"{kind}-{stop}" for kind, stop, _ in STOPS])
def test_a_stop_says_what_was_committed_and_the_way_on(
        kind: str, stop: str, code: int, tmp_path: Path) -> None:
    require_legacy_reader()
    with _store(kind, tmp_path) as (url, options, rows, checkpointed):
        original = rows()
        backup = tmp_path / "backup.jsonl"
        as_json = stop != "SIGINT"
        # Long enough that the stop comes in a pause; Redis may commit a batch that changed
        # nothing first (a page of SCAN with no rows), so its run must go on to one that does.
        pause = "0.5" if stop == "drop" else "1" if kind == "redis" else "600"
        argv = [sys.executable, "-m", "handoff_codec", "migrate", url, *options,
                "--batch-size", "5", "--pause", pause, "--backup-file", str(backup),
                *(["--json"] if as_json else [])]
        env = {**cli_env(), "HANDOFF_CODEC_STATE_DIR": str(tmp_path / "state")}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=ROOT)
        try:
            deadline = time.monotonic() + 120
            while not checkpointed() or rows() == original:  # a batch changed rows
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline
                time.sleep(0.05)
            if stop == "drop":
                _drop_connections(url)
            else:
                proc.send_signal(signal.SIGINT if stop == "SIGINT" else signal.SIGTERM)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == code, (out, err)
        [line] = err.strip().splitlines()
        changed = sum(value != original[key] for key, value in rows().items())
        said = re.search(r"committed (\d+) rows", line)
        assert said and int(said.group(1)) == changed > 0, (line, changed)
        assert f"--restore {backup}" in line, line
        resume = line.split("to go on: ", 1)[1].split("; to undo: ", 1)[0]
        assert "--resume" in resume, line
        if as_json:
            assert json.loads(out) == {"error": {
                "exit": code, "message": line.removeprefix("handoff-codec: error: ")}}
        # The command it gives goes on (without the pause), and the restore undoes all.
        words = [word for word in shlex.split(resume)[2:] if word not in ("--json",)]
        at = words.index("--pause")
        del words[at:at + 2]
        os.environ.setdefault("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
        finished = run_cli(*words, check_code=0)
        assert "error" not in finished.stderr
        run_migrate(url, *options, "--restore", str(backup), check_code=0)
        assert rows() == original


def test_sigterm_stops_every_worker_at_once(tmp_path: Path) -> None:
    """``--workers 2``: the parent stops its shards (no wait for them), and the command it
    gives goes on; one restore per shard's file puts every row back."""
    require_legacy_reader()
    with _store("sqlite-url", tmp_path) as (url, _, rows, _checkpointed):
        original = rows()
        backup = tmp_path / "b.jsonl"
        argv = [sys.executable, "-m", "handoff_codec", "migrate", url, "--workers", "2",
                "--batch-size", "5", "--pause", "600", "--backup-file", str(backup)]
        env = {**cli_env(), "HANDOFF_CODEC_STATE_DIR": str(tmp_path / "state")}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=ROOT)
        try:
            deadline = time.monotonic() + 120
            while sum(value != original[key] for key, value in rows().items()) < 2:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            time.sleep(0.5)
            proc.send_signal(signal.SIGTERM)
            started = time.monotonic()
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 143 and time.monotonic() - started < 30, err
        [line] = err.strip().splitlines()
        assert "backup files (one per shard)" in line and line.endswith("--resume"), line
        words = shlex.split(line.split("to continue: ", 1)[1])[2:]
        at = words.index("--pause")
        del words[at:at + 2]
        os.environ.setdefault("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
        run_cli(*words, check_code=0)
        for shard in range(2):
            run_migrate(url, "--restore", str(tmp_path / f"b.shard-{shard}-of-2.jsonl"),
                        check_code=0)
        assert rows() == original
