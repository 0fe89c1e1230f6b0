"""File-system care for the stores: owners and modes, open descriptors, backups.

Everything a migration creates next to a store (a backup, a temporary file)
takes the store's owner, group and mode, and is never readable by more users
than the store itself. Open descriptors are found through Linux's
``/proc/PID/fd``; elsewhere nothing can be seen (see docs/migration.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .errors import StoreError, StoreRefusal

if TYPE_CHECKING:
    from .backup import BackupWriter
    from .report import StoreReport

__all__ = ["OpenFiles", "backup_path", "copy_backup", "create_like", "fsync_dir",
           "keep_metadata", "lasting_writers", "open_by_others", "refuse_read_only",
           "remove_quietly", "sqlite_identity"]

_PROC = Path("/proc")


SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite_file(path: Path) -> bool:
    """Whether ``path`` starts with the SQLite database header."""
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def backup_path(path: Path, suffix: str = "") -> Path:
    """A new, unused ``<path>.bak-<UTC time><suffix>`` name next to ``path``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.bak-{stamp}{suffix}")
    number = 1
    # lexists: a dangling symbolic link is a name in use too (O_EXCL refuses it).
    while os.path.lexists(candidate) or os.path.lexists(
            candidate.with_name(candidate.name + ".partial")):
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{number}{suffix}")
        number += 1
    return candidate


def sqlite_identity(database: str | os.PathLike[str], table: str) -> str:
    """One SQLite database's messages table, by the file's real path: the same for its
    path and its ``sqlite:///`` URL, however either is written."""
    text = os.fspath(database)
    place = os.path.realpath(text) if text and text != ":memory:" else text
    return f"sqlite:{place}#{table}"


def same_file(mine: str, theirs: str) -> bool:
    """Whether two identities of file stores (``sqlite:PATH#TABLE``, ``jsonl:PATH``) name
    one file by two paths (a hard link): the same device and inode, and the same table."""
    def split(identity: str) -> tuple[str, str, str] | None:
        kind, sep, rest = identity.partition(":")
        if not sep or kind not in ("sqlite", "jsonl"):
            return None
        path, _, table = rest.rpartition("#") if kind == "sqlite" else (rest, "", "")
        return kind, path, table

    a, b = split(mine), split(theirs)
    if a is None or b is None or a[0] != b[0] or a[2] != b[2]:
        return False
    try:
        one, other = os.stat(a[1]), os.stat(b[1])
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_quietly(*paths: Path | None) -> list[Path]:
    """Delete what a failed run created; return what could not be deleted."""
    left = []
    for path in paths:
        if path is None:
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            left.append(path)
    return left


def _chown_like(fd: int, source: os.stat_result) -> bool:
    """Give ``fd`` the source's owner and group; False when the OS does not allow it."""
    if (source.st_uid, source.st_gid) == (os.geteuid(), os.getegid()):
        return True
    try:
        os.fchown(fd, source.st_uid, source.st_gid)
    except PermissionError:
        return False
    return True


def keep_metadata(fd: int, source: Path, *, exact: bool) -> None:
    """Give the file open as ``fd`` the owner, group, mode and xattrs of ``source``.

    With ``exact`` (a file that will replace ``source``) an owner that cannot be
    kept is refused; otherwise (a backup) the mode narrows to the owner's bits.
    """
    info = source.stat()
    mode = stat.S_IMODE(info.st_mode)
    if not _chown_like(fd, info):
        if exact:
            raise StoreRefusal(f"{source}: cannot keep its owner {info.st_uid}:{info.st_gid} "
                               "(run as that user, or as root); nothing was written")
        mode &= 0o700
    os.fchmod(fd, mode)
    for name in _xattrs(source):
        with contextlib.suppress(OSError):  # e.g. security.* labels a user may not set
            os.setxattr(fd, name, os.getxattr(source, name))


def _xattrs(path: Path) -> list[str]:
    try:
        return os.listxattr(path)
    except (OSError, AttributeError):  # not supported by the file system, or not Linux
        return []


def create_like(path: Path, source: Path) -> int:
    """Create ``path`` (which must not exist) private, then give it ``source``'s metadata."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        keep_metadata(fd, source, exact=False)
    except BaseException:
        os.close(fd)
        remove_quietly(path)
        raise
    return fd


def copy_backup(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a private ``.partial`` file, then rename."""
    partial = target.with_name(target.name + ".partial")
    fd = create_like(partial, source)
    try:
        with os.fdopen(fd, "wb") as sink, source.open("rb") as file:
            shutil.copyfileobj(file, sink)
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(partial, target)
    except BaseException:
        remove_quietly(partial)
        raise


def refuse_read_only(path: Path) -> None:
    """Refuse a store whose mode gives no one write access (root would write anyway)."""
    mode = path.stat().st_mode
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise StoreRefusal(f"{path}: is read-only (mode {stat.S_IMODE(mode):04o}); make it "
                           "writable to migrate it; nothing was written")


class OpenFiles(NamedTuple):
    """Processes holding a file open: ``(pid, name)`` pairs, and whether every process was seen."""

    readers: list[tuple[int, str]]
    writers: list[tuple[int, str]]
    complete: bool

    def describe(self, which: list[tuple[int, str]]) -> str:
        return ", ".join(f"pid {pid} ({name})" for pid, name in which)


def _fds(pid_dir: Path) -> Iterator[os.DirEntry[str]]:
    with os.scandir(pid_dir / "fd") as entries:
        yield from entries


def _writes(pid_dir: Path, fd: str) -> bool:
    try:
        for line in (pid_dir / "fdinfo" / fd).read_text().splitlines():
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, ValueError):
        pass
    return True  # unknown: count it as a writer


def _name(pid_dir: Path) -> str:
    try:
        return (pid_dir / "comm").read_text().strip()
    except OSError:
        return "?"


def open_by_others(path: Path, *, inode: tuple[int, int] | None = None) -> OpenFiles:
    """Every process (this one included) with ``path`` open (or the file ``inode``, a
    ``(device, inode)`` pair: a file renamed over), from ``/proc/*/fd`` on Linux.

    ``complete`` is False where ``/proc`` is missing or some process's
    descriptors could not be read (another user's, when not root).
    """
    readers: list[tuple[int, str]] = []
    writers: list[tuple[int, str]] = []
    try:
        wanted = inode or (lambda info: (info.st_dev, info.st_ino))(path.stat())
        pids = [entry for entry in os.scandir(_PROC) if entry.name.isdigit()]
    except OSError:
        return OpenFiles([], [], False)
    complete = True
    for entry in pids:
        pid_dir = Path(entry.path)
        try:
            for fd in _fds(pid_dir):
                try:
                    info = os.stat(fd.path)
                except OSError:
                    continue
                if (info.st_dev, info.st_ino) == wanted:
                    found = (int(entry.name), _name(pid_dir))
                    (writers if _writes(pid_dir, fd.name) else readers).append(found)
        except FileNotFoundError:
            continue  # the process ended
        except OSError:
            complete = False
    return OpenFiles(readers, writers, complete)


def lasting_writers(path: Path, *, looks: int = 5, gap: float = 0.02) -> OpenFiles:
    """The processes that hold ``path`` open for writing at each of ``looks`` looks,
    ``gap`` seconds apart: a writer that keeps it open, not one that opens it for each
    append (a migration carries those appends over)."""
    import time

    found = open_by_others(path)
    for _ in range(looks - 1):
        if not found.writers:
            break
        time.sleep(gap)
        again = open_by_others(path)
        found = OpenFiles(found.readers, [w for w in found.writers if w in again.writers],
                          found.complete and again.complete)
    return found


# -- a file store's run (SQLite, JSONL): one step, all or nothing ----------------------


def check_is_file(path: Path) -> None:
    """Refuse (StoreError) a path that names no file: missing, or a directory."""
    if not path.exists():
        raise StoreError(f"{path}: no such file")
    if path.is_dir():
        raise StoreError(f"{path}: is a directory")


def killed_run_notes(removed: list[str]) -> list[str]:
    """The warnings for the backups of killed runs a new run deleted."""
    return [f"removed {left}: the backup of a run killed before it changed the store"
            for left in removed]


def stopped_before_change(exc: OSError, store: Path, kind: str, made: str) -> StoreRefusal:
    """The refusal of a file store's run that an I/O error (a full disk) stopped before it
    changed the ``kind`` (store, file) at ``store``; ``made``: what of the run is deleted."""
    return StoreRefusal(
        f"{exc.filename or store}: {exc.strerror or exc}; the run stopped before it changed "
        f"{store}: nothing was committed, the {kind} is unchanged, and this run's {made} "
        "deleted; free space (or name a --backup-file on another disk) and run the same "
        "command again")


def undo_failed_run(report: StoreReport, writer: BackupWriter | None, store: Path, kind: str,
                    *made: Path | None) -> None:
    """After a file store's run failed: nothing was written, and what the run made (its
    backup, the paths ``made``) is deleted; refused (StoreRefusal) when some cannot be."""
    report.written = False
    report.backup = None
    backup = writer.made if writer is not None else None
    if writer is not None:
        writer.close()
    left = remove_quietly(*made, backup)
    if left:
        raise StoreRefusal(f"{store}: the run failed and the {kind} is unchanged, but "
                           f"{', '.join(map(str, left))} could not be deleted")
