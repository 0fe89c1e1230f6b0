"""The Redis backend: ``RedisSession`` lists through redis-py, in the SDK's own key layout.

One class, :class:`RedisListStore`, registered for the Redis URL schemes:
opened, it holds the URL and the options; connected (``connect``), it is the
lists' row access, migrated online (``online``). :func:`rewrite_redis_session`
is the read-repair of one session through the application's own async client.
redis-py is imported with this module, and a store that needs it and finds it
missing names the extra to install.

``RedisSession`` (openai-agents 0.24) keeps a session's items as JSON strings in
the list ``{key_prefix}:{session_id}:messages`` (with the hash
``{key_prefix}:{session_id}`` and the counter ``{key_prefix}:{session_id}:counter``
beside it); the default prefix is ``agents:session``. A row is one list element,
keyed by (list key, index).

Lists are found with ``SCAN ... MATCH {prefix}:*:messages TYPE list`` and read
with ``LRANGE`` in batches. A batch is written by one Lua script that, for each
row, does ``LSET`` only if ``LINDEX`` still returns the value read, and stores the
checkpoint in the same step: Redis runs the script atomically, so no lock is
held beyond it, and an SDK writer's ``WATCH`` simply retries. ``LSET`` keeps the
key's TTL. The checkpoint (``handoff-codec:migrate:{prefix}:checkpoint:{K/N}``)
holds the SCAN cursor of the page being read, the list and the index; a resumed
run reads that page again, that list from the index and every other list of the
page from its start (a page's key order can change between runs), so rows may
be read twice (they are then already current), never skipped. A shard's run holds the lock key
``handoff-codec:migrate:{prefix}:lock:{K/N}`` (``SET NX PX``), renewed on a timer, and
every write checks it still holds the run's token (``_lease``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from ..rule import Row, RowOutcome
from ._catchup import redis_catch_up
from ._lease import SET_IF_HELD, SWAP, RedisLease, forget_state
from ._urls import mask_url
from .base import register_store, unknown_options
from .errors import StoreError, StoreRefusal
from .online import OnlineStore
from .row_access import Batch, Change, Checkpoint, Position, Settle, Shard

try:
    import redis
except ImportError as exc:  # depends on the install: a store that needs it says so
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

__all__ = ["RedisListStore", "rewrite_redis_session"]

REDIS_SCHEMES = ("redis", "rediss", "unix")

DEFAULT_PREFIX = "agents:session"
_MESSAGES = b":messages"


def _need_redis() -> None:
    """Raise a StoreError naming the extra when redis-py is not installed."""
    if _MISSING is not None:
        raise StoreError("Redis stores need redis-py: pip install 'handoff-codec[redis]'"
                         ) from _MISSING


def _glob_escape(text: bytes) -> bytes:
    out = bytearray()
    for byte in text:
        if byte in b"*?[]\\":
            out.append(0x5C)
        out.append(byte)
    return bytes(out)


@register_store
class RedisListStore(OnlineStore):
    """``RedisSession`` lists, one per session, under a key prefix."""

    schemes: ClassVar[tuple[str, ...]] = REDIS_SCHEMES
    kind = "redis"

    @classmethod
    def check_url(cls, url: str) -> None:
        unknown_options(url, unknown_url_options(url), "redis-py")

    def open_rows(self) -> None:
        options = self.options
        self._connect(self.url, key_prefix=options.key_prefix, lock_ttl=options.lock_ttl,
                      job_id=options.job_id, client=self.client)

    def _connect(self, url: str, *, key_prefix: str = DEFAULT_PREFIX,
                 lock_ttl: float = 60.0, client: redis.Redis | None = None,
                 job_id: str | None = None) -> None:
        _need_redis()
        try:
            self._redis: redis.Redis = client or redis.Redis.from_url(url)
            self._redis.ping()
        except (ValueError, redis.RedisError) as exc:
            raise StoreError(f"{mask_url(url)}: {exc}") from None
        self.where = mask_url(url)
        kwargs = self._redis.connection_pool.connection_kwargs
        host = str(kwargs.get("host", "localhost"))
        host = "127.0.0.1" if host in ("localhost", "::1") else host.lower()
        place = (f"unix:{kwargs['path']}" if "path" in kwargs else
                 f"{host}:{kwargs.get('port', 6379)}")
        self.identity = f"redis://{place}/{kwargs.get('db', 0)}#{key_prefix}"
        self._prefix = key_prefix.encode("utf-8")
        own = f"handoff-codec:migrate:{key_prefix}"
        self._checkpoint_base = f"{own}:checkpoint:"
        self._lock_ms = int(lock_ttl * 1000)
        self._job_id = job_id
        self.taken_over = False  # the shard lock was taken over from a killed pod of the job
        self._own = own + ":"
        self._swap_script = self._redis.register_script(SWAP)
        self._set_script = self._redis.register_script(SET_IF_HELD)
        self._shard = Shard()
        self._held: RedisLease | None = None

    def prepare(self, shard: Shard) -> None:
        self._shard = shard

    def _session_id(self, key: bytes) -> str | None:
        head = self._prefix + b":"
        if not key.startswith(head) or not key.endswith(_MESSAGES):
            return None
        # A session id that is not UTF-8 keeps its bytes as surrogate escapes: its rows are
        # migrated like any other (the key is used as its bytes), never skipped.
        return key[len(head):-len(_MESSAGES)].decode("utf-8", "surrogateescape")

    def batches(self, after: Position, size: int, shard: Shard) -> Iterator[Batch]:
        pattern = _glob_escape(self._prefix) + b":*" + _MESSAGES
        if after and after.get("end"):
            return
        cursor = int(after["cursor"]) if after else 0
        resume_key = after["key"].encode("utf-8", "surrogateescape") if after and after.get(
            "key") else None
        resume_index = int(after["index"]) if after and after.get("key") else 0
        rows: list[Row] = []
        seen: dict[bytes, int] = {}  # how far each list was read, for the final passes
        started = bool(after and after.get("catchup"))  # resumed in the final passes
        while not started or cursor != 0:
            started = True
            page_cursor = cursor
            cursor, found = self._redis.scan(cursor, match=pattern, count=max(size, 100),
                                             _type="list")
            # A resumed page is read whole, each list from its start but the one the
            # run stopped in: the order of keys within a page can change between runs
            # (Redis rehashes its tables as it goes), so "the keys after the one it
            # stopped in" may not be the ones left.
            keys = [_bytes(k) for k in found]
            for key in keys:
                session_id = self._session_id(key)
                if session_id is None or not shard.holds(session_id) or key in seen:
                    continue  # (SCAN may return a key twice: it is read once)
                index = resume_index if key == resume_key else 0
                while True:
                    values = self._redis.lrange(key, index, index + size - len(rows) - 1)
                    rows.extend(Row((key, index + n), session_id, _bytes(value))
                                for n, value in enumerate(values))
                    index += len(values)
                    if len(rows) >= size:
                        yield Batch(rows, {"cursor": page_cursor,
                                           "key": key.decode("utf-8", "surrogateescape"),
                                           "index": index})
                        rows = []
                        continue
                    break
                seen[key] = index
            resume_key = None
            if rows or cursor == 0:
                yield Batch(rows, {"cursor": cursor, "key": None, "index": 0,
                                   "catchup": cursor == 0})
                rows = []
        final = {"cursor": 0, "key": None, "index": 0, "catchup": True}
        yield from redis_catch_up(self._redis, pattern, self._session_id, shard, seen, size,
                                  final, _bytes)

    def count_rows(self, shard: Shard) -> int:
        """The rows of the shard's lists now, for a progress bar's total."""
        pattern = _glob_escape(self._prefix) + b":*" + _MESSAGES
        keys = [key for key in self._redis.scan_iter(match=pattern, count=1000, _type="list")
                if (sid := self._session_id(key)) is not None and shard.holds(sid)]
        total = 0
        for start in range(0, len(keys), 1000):
            pipe = self._redis.pipeline(transaction=False)
            for key in keys[start:start + 1000]:
                pipe.llen(key)
            total += sum(pipe.execute())
        return total

    def count_sessions(self, shard: Shard) -> int:
        """The sessions of ``shard`` that have a list of items now (a resumed run's count)."""
        pattern = _glob_escape(self._prefix) + b":*" + _MESSAGES
        keys = set()
        for key in self._redis.scan_iter(match=pattern, count=1000, _type="list"):
            session_id = self._session_id(key)
            if session_id is not None and shard.holds(session_id):
                keys.add(key)
        return len(keys)

    def session_rows(self, session_id: str) -> list[Row]:
        """Every row of one session, in list order."""
        key = self._prefix + b":" + session_id.encode("utf-8") + _MESSAGES
        return [Row((key, n), session_id, _bytes(value))
                for n, value in enumerate(self._redis.lrange(key, 0, -1))]

    def commit(self, changes: Sequence[Change], settle: Settle | None) -> list[bool]:
        lease = self._held
        fence: list[Any] = [] if lease is None else [lease.key]
        token: list[Any] = [] if lease is None else [lease.token]
        if lease is not None:
            lease.check()
        written: list[bool] = []
        if changes:
            args: list[Any] = [len(changes)]
            for change in changes:
                args += [change.row.key[1], change.row.value, change.new]
            result = self._swap_script(keys=[c.row.key[0] for c in changes] + fence,
                                       args=args + token)
            if lease is not None:
                lease.fenced(result)
            written = [bool(flag) for flag in result]
        if settle is not None:
            # After the swap: a kill in between makes a resumed run read these rows
            # again and find them current, never skip one.
            result = self._set_script(keys=[self._checkpoint_base + str(self._shard), *fence],
                                      args=[settle(written).dumps(), *token])
            if lease is not None:
                lease.fenced(result)
        return written

    def holds(self, changes: Sequence[Change]) -> list[bool]:
        pipe = self._redis.pipeline(transaction=False)
        for change in changes:
            pipe.lindex(change.row.key[0], change.row.key[1])
        return [value is not None and _bytes(value) == change.row.value
                for value, change in zip(pipe.execute() if changes else [], changes,
                                         strict=True)]

    def _checkpoint_keys(self) -> list[Any]:
        pattern = _glob_escape(self._checkpoint_base.encode("utf-8")) + b"*"
        return list(self._redis.scan_iter(match=pattern, count=1000))

    def count_checkpoints(self) -> int:
        """The checkpoints :meth:`forget_checkpoints` would delete (nothing is deleted)."""
        return len(self._checkpoint_keys())

    def forget_checkpoints(self) -> int:
        """Delete the checkpoints of every shard under this prefix; how many there were."""
        keys = self._checkpoint_keys()
        # The layouts set goes too (_lease); refused while a run holds a shard lock.
        return forget_state(self._redis, self._own, keys, self.where)

    def load_checkpoint(self, shard: Shard) -> Checkpoint | None:
        state = self._redis.get(self._checkpoint_base + str(shard))
        return None if state is None else Checkpoint.loads(_bytes(state))

    @contextmanager
    def lock(self, shard: Shard) -> Iterator[None]:
        owner = f"job={self._job_id} shard={shard}" if self._job_id else ""
        lease = RedisLease(self._redis, self._own, shard, self._lock_ms, self.where, owner)
        lease.acquire()
        self.taken_over = lease.taken_over
        self._held = lease
        try:
            yield
        finally:
            self._held = None
            lease.release()

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]:
        return (str(key[0]).encode("utf-8", "surrogateescape"), int(key[1]))

    def refuse_if_running(self) -> None:
        """Refuse (StoreRefusal) while a run holds a shard lock under this prefix (a
        killed run's lock until its TTL runs out)."""
        for other in self._redis.smembers(self._own + "layouts"):
            count = int(other)
            if any(self._redis.exists(f"{self._own}lock:{k}/{count}") for k in range(count)):
                raise StoreRefusal(f"{self.where}: a run of {count} shard(s) is migrating this "
                                   "store; --restore waits until it ends (a killed run's "
                                   "lock expires after --lock-ttl); nothing was written")

    def close(self) -> None:
        self._redis.close()


def unknown_url_options(url: str) -> list[str]:
    """The query options of a Redis URL that redis-py's ``from_url`` does not take.

    ``redis.ConnectionPool.from_url`` parses the options it knows and hands
    every other one to the connection class as a keyword, which raises
    ``TypeError`` at the first connection: what neither the pool nor that
    class (with its bases) takes is unknown.
    """
    from urllib.parse import parse_qsl, urlsplit

    _need_redis()
    parts = urlsplit(url)
    names = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
    if not names:
        return []
    connection = {"rediss": redis.SSLConnection,
                  "unix": redis.UnixDomainSocketConnection}.get(parts.scheme.lower(),
                                                                 redis.Connection)
    accepted: set[str] = set()
    for cls in (redis.ConnectionPool, *connection.__mro__):
        init = vars(cls).get("__init__")
        if init is not None:
            accepted.update(name for name, parameter in
                            inspect.signature(init).parameters.items()
                            if name != "self" and parameter.kind in (
                                parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY))
    return [name for name in dict.fromkeys(names) if name not in accepted]


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
