"""Worker processes of ``--workers N``: they end with their parent, and (a SQLite file's
run) apply the per-row rule beside it (:class:`RuleWorkers`).

A worker holds a shard's lock and appends to its backup; if only the parent is
killed, a worker left running would keep writing, and the ``--resume`` the
docs tell the operator to run would be refused until it finished. So each
worker, as it starts, asks Linux to send it SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``), and on every system also watches its parent
from a thread (the parent id changes when the parent is gone) and exits.
A worker killed mid-batch is like any killed run: its batch's transaction or
script did not happen, and ``--resume`` continues.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from ..rule import NULL_ROW, MigrationResult, RowOutcome, RowRule

__all__ = ["RuleWorkers", "apply_for_parent", "apply_rule", "die_with_parent", "unpack"]

_PR_SET_PDEATHSIG = 1
_WATCH_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """A process-pool initializer: end this worker when process ``parent`` ends."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the watcher below still runs
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="handoff-codec-parent-watch",
                     daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        threading.Event().wait(_WATCH_SECONDS)
    os._exit(1)


_CHUNK = 64  # rows per task of a worker process


def apply_rule(rule: RowRule, raws: list[bytes | None]) -> list[RowOutcome]:
    """The rule's outcome for each row's bytes (None: a NULL cell)."""
    return [NULL_ROW if raw is None else rule(raw) for raw in raws]


# An outcome as a worker process sends it: (status, new, reason, rewrite, is_list,
# decoded, withheld, unreadable, results); each result (status, reason, format,
# first lost recovery or None, key_order_only, restored, leaks).
_Packed = tuple[Any, ...]


def apply_for_parent(rule: RowRule, raws: list[bytes | None]) -> list[_Packed]:
    """:func:`apply_rule` in a worker process, each outcome cut to what the report reads."""
    return [_pack(outcome) for outcome in apply_rule(rule, raws)]


def _pack(outcome: RowOutcome) -> _Packed:
    results = tuple(
        (r.status, r.reason, r.format,
         None if r.lossless else next(x for x in r.recoveries if x.lost),
         r.key_order_only, r.restored, r.leaks) for r in outcome.results)
    return (outcome.status, outcome.new, outcome.reason, outcome.rewrite, outcome.is_list,
            outcome.decoded, outcome.withheld, outcome.unreadable, results)


def unpack(packed: _Packed) -> RowOutcome:
    """The outcome a worker sent: its items left out, and of each result's recoveries
    only the first lost one (what :meth:`StoreReport.count` reads)."""
    status, new, reason, rewrite, is_list, decoded, withheld, unreadable, results = packed
    return RowOutcome(status, new, reason, tuple(
        MigrationResult.model_construct(
            status=state, item=None, reason=why, format=form,
            recoveries=[] if lost is None else [lost], key_order_only=order,
            restored=restored, leaks=leaks)
        for state, why, form, lost, order, restored, leaks in results),
        rewrite, is_list, decoded, withheld, unreadable)


class RuleWorkers:
    """Worker processes that apply the rule to rows' bytes, and the parent beside them.

    Each batch's rows go to the workers in chunks; the parent then takes back,
    from the last, each chunk that no worker has started and applies the rule
    itself, so the parent and the workers meet in the batch. One worker fewer
    than ``workers``: the parent is the other one.
    """

    def __init__(self, workers: int, rule: RowRule) -> None:
        self.rule = rule
        self.pool = ProcessPoolExecutor(workers - 1, mp_context=get_context("spawn"),
                                        initializer=die_with_parent, initargs=(os.getpid(),))
        # Until the workers have started (imported this package), the parent reads alone.
        self.started = [self.pool.submit(apply_for_parent, rule, [])
                        for _ in range(workers - 1)]

    def submit(self, raws: list[bytes | None]) -> list[Any]:
        """One entry per chunk: a future, or the outcomes the parent found itself."""
        if self.started:
            if not all(future.done() for future in self.started):
                return [apply_rule(self.rule, raws)]
            for future in self.started:
                future.result()  # a worker that failed to start fails the run
            self.started = []
        chunks = [raws[i:i + _CHUNK] for i in range(0, len(raws), _CHUNK)]
        parts: list[Any] = [self.pool.submit(apply_for_parent, self.rule, chunk)
                            for chunk in chunks]
        for index in range(len(parts) - 1, -1, -1):
            if not parts[index].cancel():
                break
            parts[index] = apply_rule(self.rule, chunks[index])
        return parts

    @staticmethod
    def done(parts: list[Any]) -> bool:
        return all(not isinstance(part, Future) or part.done() for part in parts)

    @staticmethod
    def ready(batch: tuple[int, int, list[Any], list[Any]]
              ) -> tuple[int, int, list[Any], list[RowOutcome]]:
        """A pending batch with its outcomes in row order (waiting for the workers')."""
        scanned, passed, todo, parts = batch
        return scanned, passed, todo, [
            outcome for part in parts
            for outcome in (map(unpack, part.result()) if isinstance(part, Future) else part)]

    def __enter__(self) -> RuleWorkers:
        return self

    def __exit__(self, *_: object) -> None:
        # Workers still starting are not waited for: they find nothing to do, and end.
        self.pool.shutdown(wait=not self.started, cancel_futures=True)
