"""Read-repair of one ``RedisSession`` through the session's own async client.

``UpgradingSession(write_back=True)`` around a ``RedisSession`` rewrites the
session's list with the client the session was given: its connection pool,
TLS (``rediss://``), unix socket, credentials and timeouts are the
application's, never rebuilt from host and port. Each row is set by the same
compare-and-swap script as a migration's batches (``LSET`` only where
``LINDEX`` still returns the value read), after ``before`` (the backup) has
been given the changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ._lease import SWAP
from ._protocol import Change, Row, RowOutcome

__all__ = ["rewrite_redis_session"]


def _bytes(value: bytes | str) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


async def rewrite_redis_session(client: Any, messages_key: str, session_id: str,
                          rule: Callable[[Row], RowOutcome],
                          keep: Callable[[Row, bytes], bool] | None = None,
                          before: Callable[[list[Change]], Any] | None = None) -> int:
    """Rewrite the rows of ``messages_key`` the rule changes; how many were written.

    ``keep(row, new)`` may veto a row's rewrite (True: leave it as it is);
    ``before(changes)`` (awaited if it returns an awaitable) runs before any
    row changes: the backup of the rows about to change.
    """
    key = messages_key.encode("utf-8")
    values = await client.lrange(messages_key, 0, -1)
    args: list[Any] = []
    changes: list[Change] = []
    for index, value in enumerate(values):
        row = Row((key, index), session_id, _bytes(value))
        new = rule(row).new
        if new is not None and not (keep is not None and keep(row, new)):
            args += [index, row.value, new]
            changes.append(Change(row, new))
    if not args:
        return 0
    if before is not None:
        done = before(changes)
        if inspect.isawaitable(done):
            await done
    count = len(args) // 3
    result = await client.eval(SWAP, count, *([messages_key] * count), count, *args)
    return sum(int(flag) for flag in result)
