"""The local state of server-store runs: which backup file each store's shard writes.

A ``--resume`` without ``--backup-file`` appends to the backup its earlier run
recorded here, never to a path read from the store (anyone with the
application's database role could write one there). The directory is
``$HANDOFF_CODEC_STATE_DIR``, else ``$XDG_STATE_HOME/handoff-codec``, else
``~/.local/state/handoff-codec``; it is created 0700, and used only while it
belongs to this user and no one else may write to it. One small JSON file per
(store, table or key prefix, shard) holds the backup's absolute path.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

from .errors import StoreError

__all__ = ["check_state_dir", "ensure_state_dir", "forget_backup", "forget_backups",
           "record_backup", "recorded_backup", "state_dir", "writable_dir"]


def state_dir() -> Path:
    """Where the state lives (not created)."""
    explicit = os.environ.get("HANDOFF_CODEC_STATE_DIR")
    if explicit:
        return Path(explicit).absolute()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base).absolute() / "handoff-codec"


def _private_dir(create: bool) -> Path | None:
    folder = state_dir() / "migrate"
    if create:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise StoreError(f"{folder}: the state directory is not a private directory of this "
                         "user; give --backup-file, or set HANDOFF_CODEC_STATE_DIR")
    return folder


def writable_dir(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (None: one can), found by creating one and
    deleting it at once (permission bits do not tell: root, a read-only mount)."""
    if not folder.exists():
        return "no such directory"
    if not folder.is_dir():
        return "not a directory"
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".handoff-codec-probe-")
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)
    return None


def check_state_dir() -> None:
    """Refuse (StoreError), creating nothing, a state directory a run could not use: one
    that is not private, or that cannot be created."""
    folder = state_dir() / "migrate"
    if os.path.lexists(folder):
        _private_dir(create=False)
        return
    existing = next(parent for parent in folder.parents if os.path.lexists(parent))
    problem = writable_dir(existing)
    if problem is None:
        return
    if os.environ.get("HANDOFF_CODEC_STATE_DIR"):
        where = "HANDOFF_CODEC_STATE_DIR names a directory that cannot be created"
    else:
        home = os.environ.get("HOME", "")
        where = (f"no HANDOFF_CODEC_STATE_DIR, and no writable HOME (HOME={home!r}"
                 + (f", XDG_STATE_HOME={os.environ['XDG_STATE_HOME']!r}"
                    if os.environ.get("XDG_STATE_HOME") else "") + ")")
    raise StoreError(f"{folder}: the local state directory cannot be created ({existing}: "
                     f"{problem}): {where}; set HANDOFF_CODEC_STATE_DIR to a writable "
                     "directory")


def ensure_state_dir() -> None:
    """Create the state directory if need be; StoreError when it is not private."""
    _private_dir(create=True)


def _name(scope: str) -> str:
    return hashlib.sha256(scope.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json"


def recorded_backup(scope: str) -> Path | None:
    """The backup file recorded for ``scope`` (a store's shard), if any."""
    folder = _private_dir(create=False)
    if folder is None:
        return None
    try:
        fd = os.open(folder / _name(scope), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except (FileNotFoundError, OSError):
        return None
    with os.fdopen(fd, "rb") as file:
        try:
            data = json.loads(file.read())
        except ValueError:
            return None
    backup = data.get("backup") if isinstance(data, dict) else None
    return Path(backup) if isinstance(backup, str) and os.path.isabs(backup) else None


def record_backup(scope: str, backup: Path) -> None:
    """Record ``backup`` (absolute) as the backup file of ``scope``."""
    folder = _private_dir(create=True)
    assert folder is not None
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".state-")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump({"scope": scope, "backup": str(backup)}, file)
    os.replace(temp, folder / _name(scope))


def forget_backup(scope: str) -> bool:
    """Drop the record of ``scope``; whether there was one."""
    folder = _private_dir(create=False)
    if folder is None:
        return False
    try:
        os.unlink(folder / _name(scope))
    except FileNotFoundError:
        return False
    return True


def forget_backups(prefix: str, *, dry_run: bool = False) -> int:
    """Drop the records of every scope that starts with ``prefix`` (every shard of a store);
    how many there were (``dry_run``: count them, drop none)."""
    folder = _private_dir(create=False)
    if folder is None:
        return 0
    dropped = 0
    for entry in folder.glob("*.json"):
        try:
            fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as file:
                scope = json.loads(file.read()).get("scope", "")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(scope, str) and scope.startswith(prefix + "|"):
            dropped += 1 if dry_run else forget_backup(scope)
    return dropped
