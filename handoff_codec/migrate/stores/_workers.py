"""Worker processes of ``--workers N`` that end with their parent.

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

__all__ = ["die_with_parent"]

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
