"""The shard locks of a SQL store: one shard layout per store at a time.

A run of shard ``K/N`` holds the advisory lock of ``K/N`` (``pg_try_advisory_lock``
on PostgreSQL, ``GET_LOCK`` on MySQL/MariaDB) for as long as its connection
lives; there is no expiry to renew. Before taking it, the run takes a short
gate lock (for the rest of that transaction on PostgreSQL; for a few statements
on MySQL/MariaDB), reads the shard counts recorded by earlier runs (the
``layouts`` row of the checkpoint table) and is refused (:class:`StoreRefusal`)
while a shard lock of another count is held. So ``--workers 2`` beside a plain
run, or ``--shard 0/2`` beside ``--shard 1/3``, never overlap.

A thread pings that connection, so an idle timeout does not end it, and each write
transaction of the run checks that the lock is still held by the
connection that took it (:meth:`SqlLock.fence`): there is no expiry, but a
connection the server dropped takes its lock with it.

MySQL/MariaDB lock names are server-wide, so they name the database too:
``hc:`` and 48 hex digits of SHA-256 of ``{database}.{table}:{purpose}``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .errors import StoreError, StoreRefusal

__all__ = ["LAYOUTS", "SqlLock"]

LAYOUTS = "layouts"  # the checkpoint table's row (its shard column) of recorded counts
_GATE_WAIT = 30  # seconds: the gate is held for a few statements only


class SqlLock:
    """Names and statements for the locks of one messages table."""

    def __init__(self, dialect: str, database: str, table: str, where: str) -> None:
        self.dialect = dialect
        self._database = database
        self._table = table
        self._where = where

    def pg_number(self, purpose: str) -> int:
        name = f"handoff-codec:{self._table}:{purpose}"
        return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)

    def mysql_name(self, purpose: str) -> str:
        digest = hashlib.sha256(f"{self._database}.{self._table}:{purpose}".encode())
        return "hc:" + digest.hexdigest()[:48]

    def _held(self, conn: Connection, purposes: list[str]) -> bool:
        """Whether anyone holds one of the shard locks ``purposes``."""
        if not purposes:
            return False
        if self.dialect == "postgresql":
            numbers = [self.pg_number(p) for p in purposes]
            query = sa.text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                            "AND objsubid = 1 AND granted AND database = (SELECT oid FROM "
                            "pg_database WHERE datname = current_database()) AND "
                            "((classid::bigint << 32) | objid::bigint) = ANY(:keys)")
            return bool(conn.execute(query, {"keys": numbers}).scalar())
        names = {f"n{i}": self.mysql_name(p) for i, p in enumerate(purposes)}
        used = " OR ".join(f"IS_USED_LOCK(:{key}) IS NOT NULL" for key in names)
        return bool(conn.execute(sa.text(f"SELECT {used}"), names).scalar())

    def acquire(self, conn: Connection, shard: Any, read_layouts: Callable[[], str | None],
                write_layouts: Callable[[str], None]) -> tuple[Any, dict[str, Any]]:
        """Take shard ``shard``'s lock on ``conn``; the release statement and its parameters.

        Raises StoreRefusal while a run of another layout holds a lock, StoreError
        while this shard is taken.
        """
        gate = self._gate(conn)
        try:
            for other in json.loads(read_layouts() or "[]"):
                if other == shard.count:
                    continue
                if self._held(conn, [f"{k}/{other}" for k in range(other)]):
                    raise StoreRefusal(
                        f"{self._where}: another run migrates {self._table!r} as {other} "
                        f"shard(s); a run of {shard.count} shard(s) waits until it ends "
                        "(one shard layout at a time per store); nothing was written")
            got, release, params = self._take(conn, str(shard))
            if not got:
                raise StoreError(f"{self._where}: shard {shard} of {self._table!r} is "
                                 "being migrated by another run")
            write_layouts(json.dumps([shard.count]))  # the others' locks are all free
        finally:
            if gate is not None:
                conn.execute(sa.text("SELECT RELEASE_LOCK(:n)"), {"n": gate})
            conn.commit()  # ends the gate's transaction (PostgreSQL)
        return release, params

    def forget(self, conn: Connection, read_layouts: Callable[[], str | None],
               delete: Callable[[], int]) -> int:
        """``delete()`` (the table's checkpoint rows, its ``layouts`` row too) under the
        gate, once no shard lock of a recorded layout is held; what it returns.
        Raises StoreRefusal, nothing deleted, while a run holds one."""
        gate = self._gate(conn)
        try:
            for other in json.loads(read_layouts() or "[]"):
                if self._held(conn, [f"{k}/{other}" for k in range(other)]):
                    raise StoreRefusal(
                        f"{self._where}: a run of {other} shard(s) is migrating "
                        f"{self._table!r}; --forget waits until it ends; nothing was deleted")
            return delete()
        finally:
            if gate is not None:
                conn.execute(sa.text("SELECT RELEASE_LOCK(:n)"), {"n": gate})

    def refuse_running(self, conn: Connection, layouts: str | None, action: str) -> None:
        """Raise StoreRefusal while a run of a recorded layout holds a shard lock."""
        for other in json.loads(layouts or "[]"):
            if self._held(conn, [f"{k}/{other}" for k in range(other)]):
                raise StoreRefusal(
                    f"{self._where}: a run of {other} shard(s) is migrating {self._table!r}; "
                    f"{action} waits until it ends; nothing was written")
        conn.rollback()

    def _gate(self, conn: Connection) -> str | None:
        """Take the gate (PostgreSQL: until the transaction ends); MySQL's lock name."""
        if self.dialect == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:n)"),
                         {"n": self.pg_number("gate")})
            return None
        gate = self.mysql_name("gate")
        if not conn.execute(sa.text("SELECT GET_LOCK(:n, :w)"),
                            {"n": gate, "w": _GATE_WAIT}).scalar():
            raise StoreError(f"{self._where}: another run is starting; try again")
        return gate

    def _take(self, conn: Connection, purpose: str) -> tuple[bool, Any, dict[str, Any]]:
        if self.dialect == "postgresql":
            params: dict[str, Any] = {"n": self.pg_number(purpose)}
            got = conn.execute(sa.text("SELECT pg_try_advisory_lock(:n)"), params).scalar()
            return bool(got), sa.text("SELECT pg_advisory_unlock(:n)"), params
        params = {"n": self.mysql_name(purpose)}
        got = conn.execute(sa.text("SELECT GET_LOCK(:n, 0)"), params).scalar()
        return bool(got), sa.text("SELECT RELEASE_LOCK(:n)"), params

    def fence(self, holder: Connection, shard: Any) -> Callable[[Connection], None]:
        """A check for each write transaction: the lock of ``shard`` is still held by the
        connection ``holder`` (a lock goes with its connection: a server that dropped it,
        ``wait_timeout`` or a network cut, released the lock). Raises StoreError if not."""
        purpose = str(shard)
        if self.dialect == "postgresql":
            pid = holder.execute(sa.text("SELECT pg_backend_pid()")).scalar()
            query = sa.text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                            "AND objsubid = 1 AND granted AND pid = :pid AND "
                            "((classid::bigint << 32) | objid::bigint) = :n")
            params: dict[str, Any] = {"pid": pid, "n": self.pg_number(purpose)}
        else:
            params = {"id": holder.execute(sa.text("SELECT CONNECTION_ID()")).scalar(),
                      "n": self.mysql_name(purpose)}
            query = sa.text("SELECT IS_USED_LOCK(:n) = :id")
        holder.commit()

        def check(conn: Connection) -> None:
            if not conn.execute(query, params).scalar():
                raise StoreError(f"{self._where}: lost the lock of shard {shard} (its "
                                 "connection ended); stopped before writing more")

        return check

    def keep_alive(self, holder: Connection) -> Callable[[], None]:
        """Ping ``holder`` from a thread, so a server's idle timeout (MySQL/MariaDB
        ``wait_timeout``) never ends the connection that holds the lock; returns the
        function that stops the thread (call it before using ``holder`` again)."""
        if self.dialect == "postgresql":  # PostgreSQL has no idle timeout by default
            timeout = None
        else:
            timeout = holder.execute(sa.text("SELECT @@SESSION.wait_timeout")).scalar()
            holder.commit()
        interval = min(60.0, float(timeout) / 3) if timeout else 60.0
        stop = threading.Event()

        def ping() -> None:
            while not stop.wait(interval):
                try:
                    holder.execute(sa.text("SELECT 1"))
                    holder.commit()
                except sa.exc.DBAPIError:  # the lock is gone with it; the fence says so
                    return

        thread = threading.Thread(target=ping, name="handoff-codec-lock-ping", daemon=True)
        thread.start()

        def halt() -> None:
            stop.set()
            thread.join()

        return halt
