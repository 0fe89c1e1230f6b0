"""The one small protocol every server store implements, and the per-row rule.

A store hands out its rows in key order, batch by batch, each batch with the
position to resume from after it; and it writes a batch by compare-and-swap:
each row is set to its new value only if it still holds the value that was
read, in one short transaction that also records the checkpoint.

The per-row rule (:func:`migrate_row`) is :func:`handoff_codec.migrate.migrate_value`
applied to the row's JSON, with one more guarantee: the new row is the old row
with only the summary's JSON string replaced, every other byte kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .._items import ValueMigration, migrate_value
from ._rows import Prefilter
from ._rows import splice as splice_content

if TYPE_CHECKING:
    from ..._codec import Codec

__all__ = [
    "Batch",
    "Change",
    "Checkpoint",
    "Row",
    "RowOutcome",
    "ServerStore",
    "Settle",
    "Shard",
    "migrate_row",
    "shard_of",
    "splice",
]

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
    digest = hashlib.md5(session_id.encode("utf-8"), usedforsecurity=False).digest()
    return int.from_bytes(digest[:4], "big") % count


# Row, Change and Batch are made once per stored row: named tuples, which are
# immutable like frozen dataclasses and several times cheaper to build.
class Row(NamedTuple):
    """One stored item: its key in the store, its session and its raw bytes."""

    key: tuple[Any, ...]
    session_id: str
    value: bytes


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
    """Where a shard's run stands: its position (None when done) and its report so far."""

    position: Position
    done: bool
    report: dict[str, Any]

    def dumps(self) -> str:
        return json.dumps({"position": self.position, "done": self.done, "report": self.report})

    @classmethod
    def loads(cls, text: str | bytes) -> Checkpoint:
        data = json.loads(text)
        return cls(position=data["position"], done=data["done"], report=data["report"])


Settle = Callable[[list[bool]], Checkpoint]


class ServerStore(Protocol):
    """A store of session items that can be migrated online."""

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

    def load_checkpoint(self, shard: Shard) -> Checkpoint | None: ...

    def lock(self, shard: Shard) -> AbstractContextManager[None]:
        """Hold the shard against a second run; raise StoreError when it is taken."""
        ...

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]:
        """A key read back from a backup file, as :attr:`Row.key` holds it."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class RowOutcome:
    """The rule's result for one row: bytes to store (None: keep), and what was found."""

    new: bytes | None
    migration: ValueMigration | None
    error: str | None = None  # the row is invalid (not UTF-8, not JSON) or cannot be rewritten


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return f"{type(exc).__name__}: {exc}"


def splice(text: str, old: Any, new: Any, field: str = "content") -> str | None:
    """``text`` (the JSON of ``old``) with each changed item's ``field`` string replaced.

    Used for the fields of a whole stored envelope (an encrypted row's
    ``payload``); a summary's ``content`` is replaced by ``_rows.splice``.

    Only the JSON string of each changed summary is replaced, in place, so every
    other byte of the row stays as it was (number spellings, key order, escapes).
    None when that cannot be done exactly (the string is not found exactly once,
    or the result would not read back as ``new``).
    """
    pairs = list(zip(old, new, strict=True)) if isinstance(old, list) else [(old, new)]
    for before, after in pairs:
        if before is after:
            continue
        old_content, new_content = before[field], after[field]
        for ensure_ascii in (True, False):
            encoded = json.dumps(old_content, ensure_ascii=ensure_ascii)
            if text.count(encoded) == 1:
                text = text.replace(encoded, json.dumps(new_content, ensure_ascii=ensure_ascii))
                break
        else:
            return None
    return text if _reads_as(text, new) else None


def _reads_as(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except (ValueError, RecursionError):
        return False


def migrate_text(text: str, codec: Codec | None, *, restore_empty: bool = False,
                 accept_ambiguous: bool = False) -> tuple[str | None, RowOutcome]:
    """Apply the rule to a row's JSON text: the new text (None: keep), and the outcome."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: JSON errors, huge integers
        return None, RowOutcome(None, None, f"not JSON: {_error_text(exc)}")
    migration = migrate_value(value, codec=codec, restore_empty=restore_empty,
                              accept_ambiguous=accept_ambiguous)
    if not migration.changed:
        return None, RowOutcome(None, migration)
    # The same in-place rewrite as the SQLite and JSONL stores use.
    results = migration.results
    try:
        new_text: str | None = splice_content(text, results, isinstance(value, list),
                                              [r.changed for r in results])
    except (ValueError, RecursionError):  # RowError: the content could not be located
        new_text = None
    if new_text is not None and not _reads_as(new_text, migration.value):
        new_text = None
    if new_text is None:
        return None, RowOutcome(None, migration, "the summary cannot be replaced without "
                                "changing other bytes of the row; left as it is")
    return new_text, RowOutcome(new_text.encode("utf-8"), migration)


def migrate_row(raw: bytes, codec: Codec | None, *, restore_empty: bool = False,
                prefilter: Prefilter | None = None, accept_ambiguous: bool = False) -> RowOutcome:
    """Apply the rule to one stored row's bytes; never raises for a bad row.

    With ``prefilter``, a row whose bytes cannot hold a summary (or, with
    ``restore_empty``, a placeholder) is not decoded: it is kept, and reported
    only when it is not UTF-8, as the SQLite and JSONL stores do.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return RowOutcome(None, None, f"not UTF-8: {exc}")
    if prefilter is not None and not prefilter.may_hold_summary(raw) \
            and not prefilter.may_hold_placeholder(raw):
        return _KEPT
    return migrate_text(text, codec, restore_empty=restore_empty,
                        accept_ambiguous=accept_ambiguous)[1]


_KEPT = RowOutcome(None, None)  # a row the prefilter ruled out: nothing to count but the scan
