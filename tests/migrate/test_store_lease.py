"""Shard locks: a Redis lease renewed on a timer and fenced, one shard layout per store."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.migrate import RowRule
from handoff_codec.migrate.stores import (
    Change,
    Checkpoint,
    MigrateOptions,
    Shard,
    StoreError,
    StoreRefusal,
    open_store,
)
from tests.support.migrate_support import cli_command, cli_env, require_legacy_reader
from tests.support.server_stores import RedisStore, SqlStore, bulk_rows, run_migrate
from tests.support.services import mysql_database, postgres_database, redis_prefix


def _lock_key(prefix: str, shard: str = "0/1") -> str:
    return f"handoff-codec:migrate:{prefix}:lock:{shard}"


def test_a_pause_longer_than_the_lock_ttl_keeps_the_lock(tmp_path: Path) -> None:
    """The lease is renewed on a timer: batches 1.2 s apart with a 1 s TTL, the run completes,
    and a second run on the same shard is refused while the first is still going.

    16 batches make the first run last about 18 s, so the second run, started 2.5 s
    after the lock appears, meets it however slowly a loaded machine starts it (the
    test checks that the first run was still going).
    """
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        store = RedisStore(url, prefix)
        store.bulk(bulk_rows(80, legacy_every=4, sessions=4))
        first = subprocess.Popen(
            cli_command(url, "--key-prefix", prefix, "--batch-size", "5", "--lock-ttl", "1",
                        "--pause", "1.2", "--backup-file", str(tmp_path / "a.jsonl"), "--json"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
        try:
            import redis

            client = redis.Redis.from_url(url)
            deadline = time.monotonic() + 60
            while not client.exists(_lock_key(prefix)):
                assert first.poll() is None and time.monotonic() < deadline, first.stderr
                time.sleep(0.05)
            time.sleep(2.5)  # more than two TTLs, inside the pauses
            client.close()
            second = subprocess.run(
                cli_command(url, "--key-prefix", prefix, "--backup-file",
                            str(tmp_path / "b.jsonl")),
                capture_output=True, text=True, env=cli_env())
            assert first.poll() is None, "the first run ended before the second one started"
            assert second.returncode == 2, second.stderr
            assert "being migrated by another run" in second.stderr
        finally:
            out, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
        report = json.loads(out)
        assert report["migrated"] > 0 and report["untouched"] == 0
        assert not (tmp_path / "b.jsonl").exists()


def _legacy_change(store: Any, prefix: str) -> Change:

    for batch in store.batches(None, 100, Shard()):
        for row in batch.rows:
            new = RowRule()(row.value).new
            if new is not None:
                return Change(row, new)
    raise AssertionError("no legacy row")


def test_a_run_whose_lock_passed_to_another_run_writes_nothing() -> None:
    """Fencing: once the lock holds another run's token, neither rows nor the checkpoint
    are written by the first run."""
    require_legacy_reader()

    with redis_prefix() as (url, prefix):
        RedisStore(url, prefix).bulk(bulk_rows(10, legacy_every=2, sessions=1))
        before = RedisStore(url, prefix).rows()
        store = open_store(url, MigrateOptions(key_prefix=prefix, lock_ttl=30)).connect()
        try:
            store.prepare(Shard())
            change = _legacy_change(store, prefix)
            with store.lock(Shard()):
                import redis

                client = redis.Redis.from_url(url)
                client.set(_lock_key(prefix), "another-run", px=30_000)
                checkpoint = Checkpoint({"cursor": 0}, False, {})
                with pytest.raises(StoreError, match="lost the lock"):
                    store.commit([], lambda _: checkpoint)
                with pytest.raises(StoreError, match="lost the lock"):
                    store.commit([change], lambda _: checkpoint)
                assert client.get(_lock_key(prefix)) == b"another-run"
                assert store.load_checkpoint(Shard()) is None
                client.close()
        finally:
            store.close()
        assert RedisStore(url, prefix).rows() == before


# -- one layout per store ------------------------------------------------------------------

@contextmanager
def _redis_place() -> Iterator[tuple[str, tuple[str, ...], Any]]:

    with redis_prefix() as (url, prefix):
        store = RedisStore(url, prefix)
        store.bulk(bulk_rows(40, legacy_every=4, sessions=8))
        options = MigrateOptions(key_prefix=prefix)
        yield url, ("--key-prefix", prefix), (store, lambda: open_store(url, options).connect())


@contextmanager
def _sql_place(database: Callable[[], AbstractContextManager[str]]
               ) -> Iterator[tuple[str, tuple[str, ...], Any]]:

    with database() as url:
        store = SqlStore(url)
        store.bulk(bulk_rows(40, legacy_every=4, sessions=8))
        yield url, (), (store, lambda: open_store(url).connect())


PLACES = {"redis": _redis_place, "postgresql": lambda: _sql_place(postgres_database),
          "mysql": lambda: _sql_place(mysql_database)}


@pytest.mark.parametrize("kind", sorted(PLACES))
def test_runs_with_another_shard_layout_are_refused(kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    with PLACES[kind]() as (url, options, (store, open_store)):
        before = store.rows()
        holder = open_store()
        try:
            with holder.lock(Shard(0, 2)):  # a run of 2 shards (--workers 2) is going
                plain = subprocess.run(cli_command(url, *options, "--backup-file",
                                                   str(tmp_path / "plain.jsonl")),
                                       capture_output=True, text=True, env=cli_env())
                assert plain.returncode == 1, plain.stderr
                assert "as 2 shard(s)" in plain.stderr and "one shard layout" in plain.stderr
                three = subprocess.run(cli_command(url, *options, "--shard", "1/3",
                                                   "--backup-file", str(tmp_path / "3.jsonl")),
                                       capture_output=True, text=True, env=cli_env())
                assert three.returncode == 1, three.stderr
                assert store.rows() == before
                assert not (tmp_path / "plain.jsonl").exists()
                # The same layout's other shard goes on.
                other = run_migrate(url, *options, "--shard", "1/2", "--backup-file",
                                    str(tmp_path / "1of2.jsonl"))
                assert other["rows_scanned"] > 0
            with holder.lock(Shard()):  # a plain run is going
                workers = subprocess.run(cli_command(url, *options, "--workers", "2",
                                                     "--backup-file", str(tmp_path / "w.jsonl")),
                                         capture_output=True, text=True, env=cli_env())
                assert workers.returncode == 1, workers.stderr
                assert "as 1 shard(s)" in workers.stderr
        finally:
            holder.close()
        # Once the other layout's run has ended, any layout runs.
        done = run_migrate(url, *options, "--backup-file", str(tmp_path / "after.jsonl"))
        assert done["untouched"] == 0 and done["already_current"] > 0


def test_the_layout_check_raises_a_store_refusal() -> None:

    with postgres_database() as url:
        SqlStore(url).bulk(bulk_rows(4, sessions=2))
        first, second = open_store(url).connect(), open_store(url).connect()
        try:
            with first.lock(Shard(0, 3)):
                with pytest.raises(StoreRefusal, match="as 3 shard"), second.lock(Shard(0, 1)):
                    pass
                with second.lock(Shard(2, 3)):
                    pass
            with second.lock(Shard(0, 1)):
                pass
        finally:
            first.close()
            second.close()


def test_a_sql_run_whose_lock_connection_ends_stops_writing(tmp_path: Path) -> None:
    """A SQL shard lock lives as long as its connection: when the server ends that
    connection, the run stops at its next batch, and --resume completes it."""
    require_legacy_reader()
    import sqlalchemy as sa

    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(bulk_rows(400, legacy_every=2, sessions=4))
        backup = tmp_path / "b.jsonl"
        proc = subprocess.Popen(cli_command(url, "--batch-size", "25", "--pause", "0.3",
                                            "--backup-file", str(backup)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=cli_env())
        deadline = time.monotonic() + 60
        while not backup.exists() or backup.stat().st_size < 200:
            assert proc.poll() is None and time.monotonic() < deadline, "no batch was run"
            time.sleep(0.01)
        engine = sa.create_engine(store.sync_url)
        try:
            with engine.begin() as conn:  # the run's lock connection: the only advisory lock
                ended = conn.execute(sa.text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE "
                    "locktype = 'advisory' AND database = (SELECT oid FROM pg_database "
                    "WHERE datname = current_database())")).scalar()
        finally:
            engine.dispose()
        assert ended == 1
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, err
        assert "lost the lock" in err

        legacy = [key for key, value in store.rows().items()
                  if RowRule()(value).new is not None]
        assert legacy  # it stopped part-way
        final = run_migrate(url, "--batch-size", "100", "--backup-file", str(backup),
                            "--resume")
        assert final["untouched"] == 0
        assert all(RowRule()(value).new is None for value in store.rows().values())


def test_a_mysql_lock_connection_outlives_the_servers_idle_timeout(tmp_path: Path) -> None:
    """With wait_timeout=2 on the run's connections (this test's URL only), the lock's
    idle connection would be ended within the run; it is kept alive, and the run completes."""
    require_legacy_reader()
    from urllib.parse import quote


    with mysql_database() as url:
        store = SqlStore(url)
        store.bulk(bulk_rows(100, legacy_every=2, sessions=4))
        short = f"{url}?init_command={quote('SET SESSION wait_timeout=2')}"
        result = subprocess.run(cli_command(short, "--batch-size", "25", "--pause", "1",
                                            "--backup-file", str(tmp_path / "b.jsonl")),
                                capture_output=True, text=True, env=cli_env(), timeout=120)
        assert result.returncode == 0, result.stderr
        assert all(RowRule()(value).new is None for value in store.rows().values())


def _layouts(kind: str, url: str, options: tuple[str, ...]) -> Any:
    """The store's record of shard layouts: the Redis set, or the checkpoint table's row."""
    if kind == "redis":
        import redis

        client = redis.Redis.from_url(url)
        try:
            return client.smembers(f"handoff-codec:migrate:{options[1]}:layouts") or None
        finally:
            client.close()
    import sqlalchemy as sa

    engine = sa.create_engine(SqlStore(url).sync_url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT state FROM handoff_codec_checkpoints "
                                        "WHERE shard = 'layouts'")).scalar_one_or_none()
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", sorted(PLACES))
def test_forget_clears_the_layouts_too_and_waits_for_a_running_run(
        kind: str, tmp_path: Path) -> None:
    """``--forget`` deletes the record of shard layouts with the checkpoints (a layouts
    row is no checkpoint: it is not counted), and is refused, deleting nothing, while a
    run holds a shard lock: forgetting the layouts then would let another layout in."""
    require_legacy_reader()
    with PLACES[kind]() as (url, options, (store, open_store)):
        run_migrate(url, *options, "--workers", "2", "--backup-file", str(tmp_path / "b.jsonl"),
                    process=True)
        assert _layouts(kind, url, options) is not None
        migrated = store.rows()
        holder = open_store()
        try:
            with holder.lock(Shard(0, 2)):
                refused = subprocess.run(cli_command(url, *options, "--forget"),
                                         capture_output=True, text=True, env=cli_env())
                assert refused.returncode == 1, refused.stderr
                assert "--forget waits until it ends" in refused.stderr
                assert _layouts(kind, url, options) is not None
                assert holder.load_checkpoint(Shard(1, 2)) is not None
        finally:
            holder.close()
        forgot = run_migrate(url, *options, "--forget", check_code=0)
        assert forgot["checkpoints"] == 2
        assert _layouts(kind, url, options) is None
        assert store.rows() == migrated  # the rows are not touched
        checker = open_store()
        try:
            assert checker.load_checkpoint(Shard(0, 2)) is None
            assert checker.load_checkpoint(Shard(1, 2)) is None
        finally:
            checker.close()
