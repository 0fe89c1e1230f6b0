"""``UpgradingSession`` under the real ``Runner``, around each SDK session store."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Runner, SQLiteSession

from handoff_codec.integrations.openai_agents import UpgradingSession
from handoff_codec.migrate import migrate_item
from tests.support.migrate_support import CRAFTED, PLAIN, ROOT, require_legacy_reader
from tests.support.services import mysql_database, postgres_database, redis_prefix

sys.path.insert(0, str(ROOT / "examples"))
from scripted_model import ScriptedModel, text

LEGACY = CRAFTED[0]
CANONICAL = migrate_item(LEGACY).item
Factory = Callable[[], Any]


@contextmanager
def _inner(kind: str, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Yields a factory of async context managers that open the inner session."""
    if kind == "sqlite-session":
        @asynccontextmanager
        async def sqlite_session() -> AsyncIterator[Any]:
            session = SQLiteSession("s", tmp_path / "s.db")
            try:
                yield session
            finally:
                session.close()

        yield sqlite_session
        return
    if kind == "redis":
        with redis_prefix() as (url, prefix):
            @asynccontextmanager
            async def redis_session() -> AsyncIterator[Any]:
                import redis.asyncio as aioredis
                from agents.extensions.memory import RedisSession

                client = aioredis.Redis.from_url(url)
                try:
                    yield RedisSession("s", redis_client=client, key_prefix=prefix)
                finally:
                    await client.aclose()

            yield redis_session
        return
    from tests.support.server_stores import SqlStore

    places = {"postgresql": postgres_database, "mysql": mysql_database}
    with places[kind]() if kind in places else _sqlite_url(tmp_path) as url:
        store = SqlStore(url)

        @asynccontextmanager
        async def sql_session() -> AsyncIterator[Any]:
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(store.async_url)
            try:
                yield store._sessions(engine, "s")
            finally:
                await engine.dispose()

        yield sql_session


@contextmanager
def _sqlite_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'alchemy.db'}"


async def _scenario(open_inner: Any, *, write_back: bool, encrypt: bool) -> tuple[Any, ...]:
    from agents.extensions.memory import EncryptedSession
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()

    def wrap(inner: Any) -> Any:
        return EncryptedSession("s", inner, key, ttl=3600) if encrypt else inner

    async with open_inner() as inner:
        await wrap(inner).add_items([PLAIN[0], LEGACY])
    model = ScriptedModel([[text("fine", msg_id="m1")]])
    agent = Agent(name="assistant", model=model)
    async with open_inner() as inner:
        session = UpgradingSession(wrap(inner), write_back=write_back)
        await Runner.run(agent, "next question", session=session)
        session.close_write_back()
    async with open_inner() as inner:
        stored = await wrap(inner).get_items()
    return model.calls[0].input, stored


KINDS = ["sqlite-session", "sqlalchemy-sqlite", "postgresql", "mysql", "redis"]


@pytest.mark.parametrize("write_back", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_runner_sees_canonical_summaries(kind: str, write_back: bool, tmp_path: Path) -> None:
    require_legacy_reader()
    with _inner(kind, tmp_path) as open_inner:
        sent, stored = asyncio.run(_scenario(open_inner, write_back=write_back, encrypt=False))
    contents = [item.get("content") for item in sent]
    assert CANONICAL["content"] in contents and LEGACY["content"] not in contents
    assert stored[:2] == [PLAIN[0], CANONICAL if write_back else LEGACY]
    assert stored[2]["content"] == "next question" and len(stored) == 4


@pytest.mark.parametrize("kind", ["postgresql", "redis"])
def test_encrypted_session_write_back(kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    with _inner(kind, tmp_path) as open_inner:
        sent, stored = asyncio.run(_scenario(open_inner, write_back=True, encrypt=True))
    assert CANONICAL["content"] in [item.get("content") for item in sent]
    assert stored[:2] == [PLAIN[0], CANONICAL] and len(stored) == 4


def test_write_back_on_an_unsupported_session_is_refused_up_front() -> None:
    inner = SQLiteSession("s")  # in memory: no other connection can reach its rows
    try:
        with pytest.raises(TypeError, match="write_back"):
            UpgradingSession(inner, write_back=True)
        assert UpgradingSession(inner).session_id == "s"
    finally:
        inner.close()
