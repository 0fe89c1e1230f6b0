"""Rows that appear behind the scan: a final pass picks them up.

An application that still writes (an old version writing legacy summaries)
can add rows where the scan has already been:

* **Redis**: ``RPUSH`` to a list the scan has read. The scan remembers how far
  it read each list of its shard; when it has seen every list, it scans the
  keys again and reads only what lies past that point (every row of a list it
  has not seen: a new session, or one read before a ``--resume``).
* **SQL**: a transaction that took its id before the scan passed it and
  committed after (ids are handed out at insert, rows become visible at
  commit). The scan remembers the ids missing between the keys it read (the
  gaps); at the end it reads those ids again, and the rows past its last key.

Passes repeat while a pass finds rows, at most :data:`PASSES` times. What a
writer adds after the last pass is not seen: stop the writers of legacy rows,
then run once more without ``--resume`` (docs/migration.md).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from typing import Any

from ..rule import Row
from .row_access import Batch, Position, Shard

__all__ = ["LOWEST", "MAX_GAPS", "PASSES", "Gaps", "redis_catch_up"]

PASSES = 5
MAX_GAPS = 100_000  # id ranges remembered; past this, later gaps are not read again
_RANGES_PER_QUERY = 200
LOWEST = -(2 ** 63)  # the lowest BIGINT: ids below a scan's first key


class Gaps:
    """The id ranges a SQL scan found missing between the keys it read."""

    def __init__(self, after: int | None) -> None:
        # From the start: every id below the first key is a gap too.
        self._last = LOWEST - 1 if after is None else after
        self.ranges: list[tuple[int, int]] = []

    def note(self, keys: list[Any]) -> None:
        """Record the gaps before and between ``keys`` (the next page, ascending)."""
        last, ranges = self._last, self.ranges
        for key in keys:
            if key > last + 1 and len(ranges) < MAX_GAPS:
                ranges.append((last + 1, key - 1))
            last = key
        self._last = last

    def fill(self, keys: set[int]) -> None:
        """Drop the ids now read from the gaps."""
        if not keys:
            return
        ordered = sorted(keys)
        out: list[tuple[int, int]] = []
        for low, high in self.ranges:
            start = low
            for key in ordered[bisect_left(ordered, low):bisect_right(ordered, high)]:
                if key > start:
                    out.append((start, key - 1))
                start = key + 1
            if start <= high:
                out.append((start, high))
        self.ranges = out

    def chunks(self) -> Iterator[list[tuple[int, int]]]:
        ranges = list(self.ranges)
        for start in range(0, len(ranges), _RANGES_PER_QUERY):
            yield ranges[start:start + _RANGES_PER_QUERY]


def redis_catch_up(client: Any, pattern: bytes, session_of: Callable[[bytes], str | None],
                   shard: Shard, seen: dict[bytes, int], size: int, position: Position,
                   as_bytes: Callable[[Any], bytes]) -> Iterator[Batch]:
    """Batches of the rows past ``seen[list]`` in each list of ``shard`` (whole lists for
    those not in ``seen``), pass after pass while a pass finds rows."""
    for _ in range(PASSES):
        rows: list[Row] = []
        found = 0
        cursor = -1
        while cursor != 0:
            cursor, keys = client.scan(max(cursor, 0), match=pattern, count=max(size, 100),
                                       _type="list")
            mine = [(as_bytes(key), sid) for key in keys
                    if (sid := session_of(as_bytes(key))) is not None and shard.holds(sid)]
            if not mine:
                continue
            pipe = client.pipeline(transaction=False)
            for key, _ in mine:
                pipe.llen(key)
            for (key, sid), length in zip(mine, pipe.execute(), strict=True):
                index = seen.get(key, 0)
                while index < int(length):
                    values = client.lrange(key, index, index + size - len(rows) - 1)
                    if not values:
                        break
                    rows.extend(Row((key, index + n), sid, as_bytes(value))
                                for n, value in enumerate(values))
                    index += len(values)
                    found += len(values)
                    if len(rows) >= size:
                        yield Batch(rows, position)
                        rows = []
                seen[key] = max(index, seen.get(key, 0))
        if rows:
            yield Batch(rows, position)
        if not found:
            return
