"""The row access every server backend gives (:class:`RowAccess`), and its batches.

A store hands out its rows in key order, batch by batch, each batch with the
position to resume from after it; and it writes a batch by compare-and-swap:
each row is set to its new value only if it still holds the value that was
read, in one short transaction that also records the checkpoint.

Every store applies the one per-row rule (``rule.RowRule``) to these rows; a
server backend, once connected (``OnlineStore.connect``), is this access.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ..rule import Row

__all__ = ["Change", "Checkpoint", "RowAccess", "Shard"]

# A JSON-serializable resume point (a primary key, a Redis SCAN cursor and list index).
Position = Any


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (``0 <= index < count``): a slice of sessions."""

    index: int = 0
    count: int = 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, session_id: str) -> bool:
        return self.count == 1 or shard_of(session_id, self.count) == self.index


def shard_of(session_id: str, count: int) -> int:
    """The shard of a session: the first 32 bits of MD5(UTF-8 session id), modulo ``count``.

    MD5 is stable across processes, machines and Python versions (``hash()`` is
    not), and databases compute it too (``md5(session_id)``), to inspect a shard.
    """
    # A Redis key that is not UTF-8 holds its session id's bytes as surrogate escapes.
    digest = hashlib.md5(session_id.encode("utf-8", "surrogateescape"),
                         usedforsecurity=False).digest()
    return int.from_bytes(digest[:4], "big") % count


# Change and Batch are made once per stored row: named tuples, which are immutable like
# frozen dataclasses and several times cheaper to build.
class Change(NamedTuple):
    """Set ``row`` to ``new`` if it still holds ``row.value``."""

    row: Row
    new: bytes


class Batch(NamedTuple):
    """Rows read in key order, and the position to resume from after them."""

    rows: list[Row]
    position: Position


@dataclass(frozen=True)
class Checkpoint:
    """Where a shard's run stands: its position (None when done) and its report so far.

    ``backups`` maps the id of each backup file the shard's runs wrote to the
    number of its records written before their rows changed: saved with the
    rows (in their transaction, where the store has one), it is what a restore
    checks a backup file against.
    """

    position: Position
    done: bool
    report: dict[str, Any]
    backups: dict[str, int] = field(default_factory=dict)

    def dumps(self) -> str:
        data = {"position": self.position, "done": self.done, "report": self.report}
        if self.backups:
            data["backups"] = self.backups
        return json.dumps(data)

    @classmethod
    def loads(cls, text: str | bytes) -> Checkpoint:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("done"), bool) or \
                not isinstance(data.get("report"), dict) or "position" not in data:
            raise ValueError("not a checkpoint")
        backups = data.get("backups")
        kept = ({k: v for k, v in backups.items() if isinstance(k, str) and type(v) is int
                 and v >= 0} if isinstance(backups, dict) else {})
        return cls(position=data["position"], done=data["done"], report=data["report"],
                   backups=kept)


Settle = Callable[[list[bool]], Checkpoint]


class SwapRows(Protocol):
    """What a restore writes with: compare-and-swap by key (every store's row access)."""

    kind: str
    where: str

    def commit(self, changes: Sequence[Change], settle: Settle | None) -> list[bool]: ...

    def load_checkpoint(self, shard: Shard) -> Checkpoint | None: ...

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]: ...

    def close(self) -> None: ...


class RowAccess(Protocol):
    """A connected server store's rows: read in batches, written by compare-and-swap,
    with checkpoints and a shard lock (what an online migration needs)."""

    kind: str
    where: str  # the store, for messages and backups (no password)

    def batches(self, after: Position, size: int, shard: Shard) -> Iterator[Batch]:
        """Rows of ``shard`` in key order, from just after ``after`` (None: the start)."""
        ...

    def commit(self, changes: Sequence[Change], settle: Settle | None) -> list[bool]:
        """Compare-and-swap each change, then record ``settle(written)`` as the checkpoint.

        ``written`` says, per change, whether it was written (False: the row
        changed under us); it is also returned. A store with transactions saves
        the checkpoint in the same transaction as the rows.
        """
        ...

    def holds(self, changes: Sequence[Change]) -> list[bool]:
        """Whether each change's row still holds ``row.value`` (read only: a dry run)."""
        ...

    def load_checkpoint(self, shard: Shard) -> Checkpoint | None: ...

    def lock(self, shard: Shard) -> AbstractContextManager[None]:
        """Hold the shard against a second run; raise StoreError when it is taken."""
        ...

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]:
        """A key read back from a backup file, as :attr:`Row.key` holds it."""
        ...

    def close(self) -> None: ...
