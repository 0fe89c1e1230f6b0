"""The Redis shard lock as a lease: one layout per store, renewed on a timer, fenced.

A run of shard ``K/N`` holds the key ``{base}lock:K/N`` (``SET NX PX``, value: a
random token, the fencing token). Taking it and checking the layout is one Lua
script: the set ``{base}layouts`` lists the shard counts of runs that may still
hold a lock, and a run of ``N`` shards is refused (:class:`StoreRefusal`) while
any lock of another count ``M`` exists, so runs with different layouts
(``--workers 2`` beside a plain run) never overlap. A count whose locks are
all gone is dropped from the set.

A thread renews the lock every third of its TTL, whatever the batches do (a
long ``--pause``, a stretch without legacy rows). Every write of the run
(:data:`SWAP`, :data:`SET_IF_HELD`) checks in the same script that the lock
still holds the run's token: a run whose lock expired (the renewal thread
starved, the connection lost) writes nothing more, even after another run
took the lock.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from typing import Any

from .errors import StoreError, StoreRefusal

__all__ = ["SET_IF_HELD", "SWAP", "RedisLease", "forget_state"]

# KEYS: the n lists, then (optional) the lock key. ARGV: n, index/old/new for each
# row, then (with the lock key) the token. Returns -1 when the lock is not ours.
SWAP = """
local n = tonumber(ARGV[1])
if #KEYS > n and redis.call('GET', KEYS[n + 1]) ~= ARGV[3 * n + 2] then
  return -1
end
local out = {}
for i = 1, n do
  local base = 1 + 3 * (i - 1)
  local index = tonumber(ARGV[base + 1])
  if redis.call('LINDEX', KEYS[i], index) == ARGV[base + 2] then
    redis.call('LSET', KEYS[i], index, ARGV[base + 3])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

# KEYS: the key to set, then (optional) the lock key. ARGV: the value, the token.
SET_IF_HELD = """
if #KEYS > 1 and redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return -1
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""

# KEYS: the layouts set. ARGV: lock base, N, K, token, TTL in ms, owner ('' or the job's
# identity, which starts the token: "OWNER#random"). Returns {0} (taken), {1, M} (a run of
# M shards holds a lock), {2, pttl} (shard taken), {3} (taken over from the same owner).
_ACQUIRE = """
local base, count = ARGV[1], ARGV[2]
for _, other in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if other ~= count then
    local live = false
    for k = 0, tonumber(other) - 1 do
      if redis.call('EXISTS', base .. k .. '/' .. other) == 1 then
        live = true
        break
      end
    end
    if live then
      return {1, tonumber(other)}
    end
    redis.call('SREM', KEYS[1], other)
  end
end
local key = base .. ARGV[3] .. '/' .. count
if not redis.call('SET', key, ARGV[4], 'NX', 'PX', ARGV[5]) then
  local owner = ARGV[6]
  local held = redis.call('GET', key)
  if owner ~= '' and held and string.sub(held, 1, #owner + 1) == owner .. '#' then
    redis.call('SET', key, ARGV[4], 'PX', ARGV[5])
    redis.call('SADD', KEYS[1], count)
    return {3}
  end
  return {2, redis.call('PTTL', key)}
end
redis.call('SADD', KEYS[1], count)
return {0}
"""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# KEYS: the layouts set, then the checkpoint keys. ARGV: lock base.
# Returns {1, M} (a run of M shards holds a lock: nothing deleted), or {0, checkpoints deleted}.
_FORGET = """
local base = ARGV[1]
for _, other in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  for k = 0, tonumber(other) - 1 do
    if redis.call('EXISTS', base .. k .. '/' .. other) == 1 then
      return {1, tonumber(other)}
    end
  end
end
redis.call('DEL', KEYS[1])
local deleted = 0
for i = 2, #KEYS do
  deleted = deleted + redis.call('DEL', KEYS[i])
end
return {0, deleted}
"""


def forget_state(client: Any, base: str, checkpoints: list[Any], where: str) -> int:
    """Delete the layouts set and the ``checkpoints`` keys of the store whose own keys
    start with ``base``, in one script; how many checkpoints there were. Refused
    (StoreRefusal, nothing deleted) while a run holds a shard lock."""
    result = client.eval(_FORGET, 1 + len(checkpoints), base + "layouts", *checkpoints,
                         base + "lock:")
    if int(result[0]) == 1:
        raise StoreRefusal(f"{where}: a run of {int(result[1])} shard(s) is migrating this "
                           "store; --forget waits until it ends (a killed run's locks expire "
                           "after --lock-ttl); nothing was deleted")
    return int(result[1])


class RedisLease:
    """Shard ``shard`` of the store whose own keys start with ``base``, held by one run."""

    def __init__(self, client: Any, base: str, shard: Any, ttl_ms: int, where: str,
                 owner: str = "") -> None:
        self._redis = client
        self._lock_base = base + "lock:"
        self._layouts = base + "layouts"
        self.key = f"{self._lock_base}{shard}"
        # A job's identity starts the token: a retried pod of that job (same index and
        # layout) takes over the lock a killed pod left (see acquire).
        self.owner = owner
        self.token = f"{owner}#{secrets.token_hex(16)}" if owner else secrets.token_hex(16)
        self.taken_over = False
        self._shard = shard
        self._ttl_ms = ttl_ms
        self._where = where
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost: str | None = None  # why the lease is lost, once it is
        self.failure: str | None = None  # the last renewal that failed, and why

    def acquire(self) -> None:
        """Take the lock, or raise: another layout runs (StoreRefusal), the shard is taken."""
        shard = self._shard
        result = self._redis.eval(_ACQUIRE, 1, self._layouts, self._lock_base,
                                  str(shard.count), str(shard.index), self.token, self._ttl_ms,
                                  self.owner)
        code = int(result[0])
        self.taken_over = code == 3
        if code == 1:
            raise StoreRefusal(
                f"{self._where}: another run migrates this store as {int(result[1])} shard(s); "
                f"a run of {shard.count} shard(s) waits until it ends (one shard layout at a "
                "time per store; a killed run's locks expire after --lock-ttl); nothing was "
                "written")
        if code == 2:
            left = max(0, int(result[1])) / 1000
            raise StoreError(f"{self._where}: shard {shard} is being migrated by another run "
                             f"(lock {self.key}; a killed run's lock expires in {left:.0f} s)")
        self._thread = threading.Thread(target=self._renew_loop, name="handoff-codec-lease",
                                        daemon=True)
        self._thread.start()

    def _renew_loop(self) -> None:
        interval = self._ttl_ms / 3000
        while not self._stop.wait(interval):
            try:
                renewed = self._redis.eval(_RENEW, 1, self.key, self.token, self._ttl_ms)
            except Exception as exc:
                # The writes are fenced: if the lease does run out, the next write
                # finds out. Only the reason is kept, for its message.
                self.failure = f"{type(exc).__name__}: {exc}"
                continue
            if not renewed:
                self.lost = "the lock expired or was taken by another run"
                return

    def check(self) -> None:
        """Raise StoreError when the lease is known to be lost."""
        if self.lost is not None:
            raise StoreError(f"{self._where}: lost the lock {self.key} ({self.lost}); "
                             "stopped before writing more")

    def fenced(self, result: Any) -> Any:
        """A fenced script's result, or StoreError when the script found the lock not ours."""
        if isinstance(result, int) and result == -1:
            self.lost = self.lost or "the lock expired or was taken by another run" + (
                f"; last renewal failed: {self.failure}" if self.failure else "")
            self.check()
        return result

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        # Never raised over the run's own outcome: an unreachable server lets the lock
        # expire with its TTL.
        with contextlib.suppress(Exception):
            self._redis.eval(_RELEASE, 1, self.key, self.token)
