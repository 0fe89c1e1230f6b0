"""The local servers the store tests use: reachable, or skip (fail under CI=true).

Each context manager makes a private place and removes it afterwards: a new
PostgreSQL or MariaDB database, a Redis key prefix. Override the servers with
HANDOFF_CODEC_TEST_POSTGRES, HANDOFF_CODEC_TEST_MYSQL, HANDOFF_CODEC_TEST_REDIS.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

POSTGRES = os.environ.get("HANDOFF_CODEC_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
MYSQL = os.environ.get("HANDOFF_CODEC_TEST_MYSQL", "mysql://root@127.0.0.1:3306/test")
REDIS = os.environ.get("HANDOFF_CODEC_TEST_REDIS", "redis://127.0.0.1:6379/0")


def unavailable(reason: str) -> None:
    """Skip with a one-line reason, or fail when CI=true."""
    reason = " ".join(reason.split())[:200]
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"server required under CI=true: {reason}")
    pytest.skip(reason)


def _name() -> str:
    return "handoff_test_" + uuid.uuid4().hex[:12]


def _server_url(url: str, database: str) -> str:
    import sqlalchemy as sa

    return sa.make_url(url).set(database=database).render_as_string(hide_password=False)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database; yields its URL."""
    try:
        import psycopg
    except ImportError:
        unavailable("psycopg is not installed (pip install 'handoff-codec[postgres]')")
    import sqlalchemy as sa

    admin = sa.make_url(POSTGRES)
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        conn = psycopg.connect(dsn, autocommit=True, connect_timeout=3)
    except psycopg.Error as exc:
        unavailable(f"PostgreSQL at {admin.host}:{admin.port} is not reachable: {exc}")
    name = _name()
    with conn:
        conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield _server_url(POSTGRES, name)
        finally:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def mysql_database() -> Iterator[str]:
    """A new, empty MySQL/MariaDB database (utf8mb4); yields its URL."""
    try:
        import pymysql
    except ImportError:
        unavailable("PyMySQL is not installed (pip install 'handoff-codec[mysql]')")
    import sqlalchemy as sa

    url = sa.make_url(MYSQL)
    try:
        conn = pymysql.connect(host=url.host or "127.0.0.1", port=url.port or 3306,
                               user=url.username or "root", password=url.password or "",
                               autocommit=True, connect_timeout=3)
    except pymysql.Error as exc:
        unavailable(f"MySQL/MariaDB at {url.host}:{url.port} is not reachable: {exc}")
    name = _name()
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        try:
            yield _server_url(MYSQL, name)
        finally:
            with conn.cursor() as cursor:
                cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
    finally:
        conn.close()


@contextmanager
def redis_prefix() -> Iterator[tuple[str, str]]:
    """A key prefix nobody else uses; yields (URL, prefix) and deletes its keys after."""
    try:
        import redis
    except ImportError:
        unavailable("redis-py is not installed (pip install 'handoff-codec[redis]')")
    client = redis.Redis.from_url(REDIS, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        unavailable(f"Redis at {REDIS} is not reachable: {exc}")
    prefix = _name()
    try:
        yield REDIS, prefix
    finally:
        for pattern in (f"{prefix}:*", f"handoff-codec:migrate:{prefix}:*"):
            keys = list(client.scan_iter(match=pattern, count=1000))
            for start in range(0, len(keys), 1000):
                client.delete(*keys[start:start + 1000])
        client.close()
