"""``UpgradingSession`` write-back goes through the ``RedisSession``'s own client.

Each test starts its own ``redis-server``: one that listens only with TLS (a
self-signed certificate made here) and requires a password, so a write-back
that succeeds went over TLS; and one that listens only on a unix socket.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")
pytest.importorskip("cryptography")

from handoff_codec.integrations.openai_agents import UpgradingSession
from handoff_codec.migrate import migrate_item
from tests.support.migrate_support import CRAFTED, PLAIN, require_legacy_reader

LEGACY = CRAFTED[0]
PASSWORD = "s3cret-for-this-test"


def _self_signed(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _redis_server(*options: str, ready: Any) -> Iterator[None]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    folder = tempfile.mkdtemp(prefix="hc-redis-")
    proc = subprocess.Popen([binary, "--save", "", "--appendonly", "no", "--dir", folder,
                             *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                if ready():
                    break
            except Exception:  # not listening yet
                pass
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                pytest.skip(f"redis-server did not start: {out[-300:]}")
            assert time.monotonic() < deadline, "redis-server did not become ready"
            time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


async def _write_back(make_client: Any) -> tuple[list[Any], list[bytes]]:
    from agents.extensions.memory import RedisSession

    client = make_client()
    try:
        inner = RedisSession("s", redis_client=client, key_prefix="tls-test")
        await inner.add_items([PLAIN[0], LEGACY])
        backup = Path(tempfile.mkdtemp(prefix="hc-backup-")) / "read-repair.jsonl"
        session = UpgradingSession(inner, write_back=True, backup_file=backup)
        items = list(await session.get_items())
        session.close_write_back()
        shutil.rmtree(backup.parent)
        raw = await client.lrange("tls-test:s:messages", 0, -1)
        return items, [bytes(value) for value in raw]
    finally:
        await client.aclose()


def _check(items: list[Any], raw: list[bytes]) -> None:
    import json

    assert items == [PLAIN[0], migrate_item(LEGACY).item]
    assert [json.loads(value) for value in raw] == items  # written back, canonical


def test_write_back_around_a_rediss_session_uses_its_tls_connection(tmp_path: Path) -> None:
    require_legacy_reader()
    import redis
    import redis.asyncio as aioredis

    cert, key = _self_signed(tmp_path)
    port = _free_port()
    url = f"rediss://:{PASSWORD}@127.0.0.1:{port}/0"

    def ready() -> bool:
        client = redis.Redis.from_url(url, ssl_ca_certs=str(cert), socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()

    with _redis_server("--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert),
                       "--tls-key-file", str(key), "--tls-ca-cert-file", str(cert),
                       "--tls-auth-clients", "no", "--requirepass", PASSWORD, ready=ready):
        items, raw = asyncio.run(_write_back(
            lambda: aioredis.Redis.from_url(url, ssl_ca_certs=str(cert))))
    _check(items, raw)


def test_write_back_around_a_unix_socket_session() -> None:
    require_legacy_reader()
    import redis
    import redis.asyncio as aioredis

    folder = Path(tempfile.mkdtemp(prefix="hc-sock-"))  # a short path: sockets allow ~100
    path = folder / "redis.sock"
    try:
        def ready() -> bool:
            client = redis.Redis(unix_socket_path=str(path), socket_timeout=1)
            try:
                return bool(client.ping())
            finally:
                client.close()

        with _redis_server("--port", "0", "--unixsocket", str(path), "--unixsocketperm",
                           "700", ready=ready):
            items, raw = asyncio.run(_write_back(
                lambda: aioredis.Redis.from_url(f"unix://{path}")))
        _check(items, raw)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_write_back_around_a_sqlalchemy_session_uses_its_own_engine(tmp_path: Path) -> None:
    """The application's engine reaches the server only through its ``connect_args``
    (the URL names a host that does not resolve): a write-back that succeeds used that
    engine, not one rebuilt from its URL."""
    require_legacy_reader()
    import json

    from sqlalchemy.ext.asyncio import create_async_engine

    from tests.support.server_stores import SqlStore
    from tests.support.services import postgres_database

    with postgres_database() as url:
        store = SqlStore(url)
        store.fill({"s": [PLAIN[0], LEGACY]})
        unreachable = store.async_url.set(host="db.invalid")

        async def scenario() -> list[Any]:
            from agents.extensions.memory import SQLAlchemySession

            engine = create_async_engine(unreachable, connect_args={"host": "127.0.0.1"})
            try:
                inner = SQLAlchemySession("s", engine=engine)
                session = UpgradingSession(inner, write_back=True,
                                           backup_file=tmp_path / "read-repair.jsonl")
                items = list(await session.get_items())
                session.close_write_back()
                return items
            finally:
                await engine.dispose()

        items = asyncio.run(scenario())
        assert items == [PLAIN[0], migrate_item(LEGACY).item]
        assert [json.loads(value) for _, value in sorted(store.rows().items())] == items
