"""The backup file of a server-store run: one format, written and read here only.

A backup is JSON Lines in pure ASCII: every character past U+007F is written
as a ``\\u`` escape, so no reader can cut a record at U+2028, U+2029 or U+0085,
and each record ends at the one ``\\n`` byte after it. Records, in order::

    {"handoff_codec_backup": 1, "store": ..., "kind": ..., "shard": "K/N", "created": ...}
    {"segment": 1, "started": ..., "resumed": false}
    {"key": [...], "session_id": ..., "old": ..., "new": ...}
    ...
    {"segment": 2, "started": ..., "resumed": true}
    ...

The header comes once, as the file's first line. Each run that writes to the
file (the first run, then every ``--resume``) starts with a segment marker.
``old`` and ``new`` hold the row's exact bytes as the text they decode to
(a changed row is always UTF-8). Files written by development builds before
segment markers existed hold a second header line where a resume started,
and no markers: a header line after the first counts as a segment marker.

Backups hold conversation text: a file is created 0600 with ``O_NOFOLLOW``
and ``O_EXCL``; appending (``--resume``) opens it with ``O_NOFOLLOW`` and
refuses a file that is not a regular file owned by this user with one link,
or whose header names another store or shard.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import StoreError

__all__ = ["BACKUP_FORMAT", "Backup", "BackupRecord", "BackupWriter", "read_backup"]

BACKUP_FORMAT = 1
_MODE = 0o600


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


@dataclass(frozen=True)
class BackupRecord:
    """One changed row: its key, its session, and its bytes before and after."""

    key: list[Any]
    session_id: str
    old: bytes
    new: bytes
    segment: int


@dataclass(frozen=True)
class Backup:
    """A backup file read whole: its header, its segments and its records (file order)."""

    path: str
    header: dict[str, Any]
    segments: int
    records: list[BackupRecord]


def _records(data: bytes) -> list[bytes]:
    """The file's lines: split at ``\\n`` bytes only (never ``str.splitlines``)."""
    lines = data.split(b"\n")
    return [line for line in lines if line.strip()]


def read_backup(path: str | os.PathLike[str]) -> Backup:
    """Read a backup file (this format, or version 1); raise StoreError when it is not one."""
    where = str(path)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise StoreError(f"{where}: {exc.strerror or exc}") from None
    lines = _records(data)
    header = _parse(lines[0], where, 1) if lines else None
    if not isinstance(header, dict) or header.get("handoff_codec_backup") != BACKUP_FORMAT:
        raise StoreError(f"{where}: not a handoff-codec backup file")
    records: list[BackupRecord] = []
    segment = 0
    for number, line in enumerate(lines[1:], 2):
        entry = _parse(line, where, number)
        if not isinstance(entry, dict):
            raise StoreError(f"{where}:{number}: not a backup record")
        if "segment" in entry or "handoff_codec_backup" in entry:  # a resume's old header
            segment += 1
            continue
        try:
            records.append(BackupRecord(list(entry["key"]), str(entry["session_id"]),
                                        entry["old"].encode("utf-8"),
                                        entry["new"].encode("utf-8"), max(segment, 1)))
        except (KeyError, TypeError, AttributeError, UnicodeEncodeError):
            raise StoreError(f"{where}:{number}: not a backup record (it needs key, "
                             "session_id, old and new)") from None
    return Backup(where, header, max(segment, 1 if records else 0), records)



def _parse(line: bytes, where: str, number: int) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        raise StoreError(f"{where}:{number}: not JSON; the backup file is damaged") from None


def _check_own_file(fd: int, where: str) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{where}: the backup path is not a regular file")
    if info.st_uid != os.geteuid():
        raise StoreError(f"{where}: the backup file belongs to another user (uid "
                         f"{info.st_uid}); name another with --backup-file")
    if info.st_nlink != 1:
        raise StoreError(f"{where}: the backup file has {info.st_nlink} links; name another "
                         "with --backup-file")
    return info


class BackupWriter:
    """Appends the rows of one run to a backup file, opened at the first write.

    A run that changes nothing creates no file. ``append`` (a resume) adds a
    segment to an existing file of the same store and shard; otherwise the
    file must not exist.
    """

    def __init__(self, path: Path, header: dict[str, Any], *, append: bool,
                 on_create: Any = None) -> None:
        self.path = path
        self.header = {"handoff_codec_backup": BACKUP_FORMAT, **header}
        self.append = append
        self.opened = False
        self._on_create = on_create
        self._fd: int | None = None

    def _open(self) -> int:
        where = str(self.path)
        base = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(
            os, "O_CLOEXEC", 0)
        created = False
        try:
            fd = os.open(self.path, base | os.O_CREAT | os.O_EXCL, _MODE)
            created = True
        except FileExistsError:
            if not self.append:
                raise StoreError(f"{where}: the backup file exists; name another with "
                                 "--backup-file") from None
            try:
                fd = os.open(self.path, base)
            except OSError as exc:
                raise StoreError(f"{where}: cannot append to the backup file: "
                                 f"{exc.strerror or exc} (a symbolic link is never "
                                 "followed)") from None
        except OSError as exc:
            raise StoreError(f"{where}: cannot create the backup file: "
                             f"{exc.strerror or exc}") from None
        try:
            info = _check_own_file(fd, where)
            os.fchmod(fd, _MODE)
            segment = 1
            if created or info.st_size == 0:
                os.write(fd, _line(dict(self.header, created=_now())))
            else:
                segment = self._next_segment(where)
            os.write(fd, _line({"segment": segment, "started": _now(),
                                "resumed": segment > 1}))
        except BaseException:
            os.close(fd)
            raise
        if created and self._on_create is not None:
            self._on_create(self.path)
        return fd

    def _next_segment(self, where: str) -> int:
        """The segment number after the existing file's last; refuse another store's file."""
        backup = read_backup(self.path)
        header = backup.header
        for name in ("store", "kind", "shard"):
            if header.get(name) != self.header.get(name):
                raise StoreError(f"{where}: is the backup of {header.get('store')} shard "
                                 f"{header.get('shard')}, not of this run; name another with "
                                 "--backup-file")
        return backup.segments + 1

    def write(self, rows: Sequence[tuple[list[Any], str, bytes, bytes]]) -> None:
        """Append ``(key, session_id, old, new)`` records and fsync them."""
        if not rows:
            return
        if self._fd is None:
            self._fd = self._open()
            self.opened = True
        data = b"".join(_line({"key": key, "session_id": session_id,
                               "old": old.decode("utf-8"), "new": new.decode("utf-8")})
                        for key, session_id, old, new in rows)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> BackupWriter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
