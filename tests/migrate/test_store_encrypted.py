"""Migrating ``EncryptedSession`` rows: decrypted in memory, re-encrypted, never plaintext."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.migrate_support import require_legacy_reader, run_cli
from tests.support.server_stores import (
    Item,
    RedisStore,
    SqlStore,
    expected_items,
    mixed_sessions,
    run_migrate,
)
from tests.support.services import postgres_database, redis_prefix

KEY_ENV = "HANDOFF_CODEC_TEST_SESSION_KEY"


def _encrypted(store: SqlStore | RedisStore, key: str, session_ids: list[str],
               work: Any) -> list[Any]:
    """``work(session_id, session)`` on each session's ``EncryptedSession``, in one loop."""
    from agents.extensions.memory import EncryptedSession

    async def run() -> list[Any]:
        if isinstance(store, SqlStore):
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(store.async_url)

            def inner(session_id: str) -> Any:
                return store._sessions(engine, session_id)

            closer = engine.dispose
        else:
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(store.url)

            def inner(session_id: str) -> Any:
                return store._session(client, session_id)

            closer = client.aclose
        try:
            return [await work(sid, EncryptedSession(sid, inner(sid), key, ttl=3600))
                    for sid in session_ids]
        finally:
            await closer()

    return asyncio.run(run())


def _fill(store: SqlStore | RedisStore, key: str, sessions: dict[str, list[Item]]) -> None:
    async def work(session_id: str, session: Any) -> None:
        await session.add_items(sessions[session_id])

    _encrypted(store, key, list(sessions), work)


def _read(store: SqlStore | RedisStore, key: str, session_ids: list[str]) -> list[list[Item]]:
    async def work(_: str, session: Any) -> list[Item]:
        return list(await session.get_items())

    return _encrypted(store, key, session_ids, work)


def _timestamps(rows: dict[Any, bytes], key: str, session_of: Any) -> dict[Any, int]:
    from agents.extensions.memory import encrypt_session as sdk

    master = sdk._ensure_fernet_key_bytes(key)
    out = {}
    for row_key, value in rows.items():
        cipher = sdk._derive_session_fernet_key(master, session_of(row_key))
        out[row_key] = cipher.extract_timestamp(json.loads(value)["payload"].encode())
    return out


def _cycle(store: SqlStore | RedisStore, url: str, tmp_path: Path, session_of: Any,
           *options: str) -> None:
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()
    sessions = mixed_sessions(4)
    _fill(store, key, sessions)
    before = store.rows()
    os.environ[KEY_ENV] = key
    try:
        args = ("--encryption-key-env", KEY_ENV, *options)
        dry = run_migrate(url, "--dry-run", *args)
        assert dry["would_migrate"] > 0 and store.rows() == before
        backup = tmp_path / "backup.jsonl"
        real = run_migrate(url, "--backup-file", str(backup), *args)
        assert real["migrated"] == dry["would_migrate"]
        assert _read(store, key, list(sessions)) == [expected_items(items)
                                                      for items in sessions.values()]
        after = store.rows()
        changed = [k for k in before if before[k] != after[k]]
        assert len(changed) == real["migrated"]
        # Same key, same TTL: each new token carries its old token's timestamp.
        assert _timestamps(after, key, session_of) == _timestamps(before, key, session_of)
        # No plaintext in the store, the backup or the report.
        text = backup.read_text() + json.dumps(real) + repr(after)
        # Each needle holds a character base64 has not, so no token holds it by chance.
        for needle in ("CONVERSATION HISTORY", "the weather", "in Oslo", '"Oslo', "some prose"):
            assert needle not in text
        assert run_migrate(url, "--backup-file", str(tmp_path / "b2.jsonl"), *args)[
            "migrated"] == 0
        restored = run_migrate(url, "--restore", str(backup), *args)
        assert restored["restored"] == len(changed) and store.rows() == before

        os.environ[KEY_ENV] = Fernet.generate_key().decode()  # the wrong key
        wrong = run_migrate(url, "--backup-file", str(tmp_path / "b3.jsonl"), *args,
                            check_code=1)
        assert wrong["migrated"] == 0 and wrong["invalid_rows"] == len(before)
        assert store.rows() == before
    finally:
        del os.environ[KEY_ENV]
    unset = run_cli(url, "--encryption-key-env", KEY_ENV, *options, check_code=2)
    assert KEY_ENV in unset.stderr


def test_encrypted_sqlalchemy_session_on_postgres(tmp_path: Path) -> None:
    require_legacy_reader()
    with postgres_database() as url:
        store = SqlStore(url)
        import sqlalchemy as sa

        sessions: dict[int, str] = {}

        def session_of(row_key: Any) -> str:
            if not sessions:
                engine = sa.create_engine(store.sync_url)
                try:
                    with engine.connect() as conn:
                        sessions.update(conn.execute(sa.text(
                            "SELECT id, session_id FROM agent_messages")).all())
                finally:
                    engine.dispose()
            return sessions[row_key[0]]

        _cycle(store, url, tmp_path, session_of)


def test_encrypted_redis_session(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        def session_of(row_key: Any) -> str:
            return str(row_key[0].decode()[len(prefix) + 1:-len(":messages")])

        _cycle(RedisStore(url, prefix), url, tmp_path, session_of, "--key-prefix", prefix)


@pytest.fixture(autouse=True)
def _no_key_left() -> Any:
    yield
    os.environ.pop(KEY_ENV, None)
