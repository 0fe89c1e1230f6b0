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

A record is whole when its line ends: each is written and fsynced before
its row changes, so a last line cut short (a kill, a full disk) belongs to a
row that was never changed. The reader skips it and says so; a writer that
appends to the file first cuts it off, so it appends after the last whole
record. A line that does not read anywhere else is damage. The header's
``id`` names the file in the store's checkpoint, which records how many of
its records were written before their rows changed (``_online``): that is
how a restore finds records missing from a copy cut short.

Backups hold conversation text: a file is created 0600 with ``O_NOFOLLOW``
and ``O_EXCL``; appending (``--resume``) opens it with ``O_NOFOLLOW`` and
refuses a file that is not a regular file owned by this user with one link,
or whose header names another store or shard. Each write holds an exclusive
``flock`` on the file, so writers that share one file (read-repair, in
several processes) never interleave or cut each other's records.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import StoreError
from ._protocol import Change
from ._urls import same_server

__all__ = ["BACKUP_FORMAT", "Backup", "BackupRecord", "BackupWriter", "key_json", "read_backup"]

BACKUP_FORMAT = 1
_MODE = 0o600


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def key_json(key: Sequence[Any]) -> list[Any]:
    """A row's key as a backup record holds it (bytes as text, as ``row_key`` reads it)."""
    return [k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k for k in key]


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
    torn: str | None = None  # what was skipped: a last record cut short (one line)

    @property
    def id(self) -> str | None:
        """The file's id in the store's checkpoint (None: written before ids existed)."""
        value = self.header.get("id")
        return value if isinstance(value, str) else None


def _records(data: bytes) -> list[bytes]:
    """The file's lines: split at ``\\n`` bytes only (never ``str.splitlines``)."""
    lines = data.split(b"\n")
    return [line for line in lines if line.strip()]


def _torn(where: str, data: bytes) -> tuple[bytes, str | None]:
    """The file's whole lines, and a line saying what was cut off (None: nothing)."""
    end = data.rfind(b"\n") + 1
    tail = data[end:]
    if not tail.strip():
        return data, None
    number = len(_records(data[:end])) + 1
    return data[:end], (f"{where}: line {number}, the last, is a record cut short ({len(tail)} "
                        "bytes, no line end): it was being written when its run stopped, "
                        "before its row was changed; skipped")


def read_backup(path: str | os.PathLike[str]) -> Backup:
    """Read a backup file (this format, or version 1); raise StoreError when it is not one.

    A last record cut short is skipped (``Backup.torn`` says so); a line that
    is not a record anywhere else is damage.
    """
    where = str(path)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise StoreError(f"{where}: {exc.strerror or exc}") from None
    whole, torn = _torn(where, data)
    if torn is not None and not whole.strip():
        raise StoreError(f"{where}: not a handoff-codec backup file (no whole line: a header "
                         "cut short, or another file)")
    lines = _records(whole)
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
    return Backup(where, header, max(segment, 1 if records else 0), records, torn)



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
    file must not exist. ``shared`` (read-repair: one file for many sessions,
    maybe in several processes) creates the file or appends to one of the same
    store, with no segment markers. Before it appends, a writer cuts off a last
    record cut short (``notes`` says so). ``records`` counts the file's whole
    records once it has written (this run's and those before them; a shared
    writer counts its own), ``id`` is the file's id.
    """

    def __init__(self, path: Path, header: dict[str, Any], *, append: bool,
                 on_create: Any = None, shared: bool = False) -> None:
        self.path = path
        self.header = {"handoff_codec_backup": BACKUP_FORMAT, **header}
        self.append = append or shared
        self.shared = shared
        self.opened = False
        self.records = 0
        self.id: str | None = None
        self.notes: list[str] = []
        self._on_create = on_create
        self._fd: int | None = None
        self._created = False

    def _open(self) -> int:
        where = str(self.path)
        base = os.O_RDWR | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(
            os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, base | os.O_CREAT | os.O_EXCL, _MODE)
            self._created = True
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
            _check_own_file(fd, where)
            os.fchmod(fd, _MODE)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _start(self, fd: int) -> bytes:
        """What goes before this writer's first records (the file is locked): a header and
        a segment marker for a new file, a marker when appending; a torn last record of
        the file is cut off first."""
        where = str(self.path)
        if os.fstat(fd).st_size:
            self._cut_torn_tail(fd, where)
        if os.fstat(fd).st_size == 0:
            self.id = uuid.uuid4().hex
            start = _line(dict(self.header, id=self.id, created=_now()))
            return start + _line({"segment": 1, "started": _now(), "resumed": False})
        if self.shared:
            header = _first_line(fd, where)
            self._check_header(header, where, ("store", "kind"))
            self.id = header.get("id") if isinstance(header.get("id"), str) else None
            return b""
        backup = read_backup(self.path)
        self._check_header(backup.header, where, ("store", "kind", "shard"))
        self.id, self.records = backup.id, len(backup.records)
        return _line({"segment": backup.segments + 1, "started": _now(), "resumed": True})

    def _check_header(self, header: dict[str, Any], where: str, names: Sequence[str]) -> None:
        """Refuse the file of another store (or shard). Read-repair shares one file between
        agents that may name one server differently (``localhost``, ``127.0.0.1``)."""
        for name in names:
            theirs, ours = header.get(name), self.header.get(name)
            if name == "store" and self.shared and isinstance(theirs, str) and \
                    isinstance(ours, str) and same_server(theirs, ours):
                continue
            if theirs != ours:
                raise StoreError(f"{where}: is the backup of {header.get('store')} shard "
                                 f"{header.get('shard')}, not of this run; name another with "
                                 "--backup-file")

    def _cut_torn_tail(self, fd: int, where: str) -> None:
        """Truncate the file after its last line end: a record cut short is never needed
        (its row was not changed). A file with no line end at all is left alone."""
        size = os.fstat(fd).st_size
        if os.pread(fd, 1, size - 1) == b"\n":
            return
        end, step = size, 1 << 16
        while end > 0:
            start = max(0, end - step)
            found = os.pread(fd, end - start, start).rfind(b"\n")
            if found >= 0:
                cut = start + found + 1
                line = _count_lines(fd, cut) + 1
                os.ftruncate(fd, cut)
                os.fsync(fd)
                self.notes.append(
                    f"{where}: line {line}, the last, was a record cut short ({size - cut} "
                    "bytes, no line end): it was being written when its run stopped, before "
                    "its row was changed; cut off, and appended after the last whole record")
                return
            end = start
        raise StoreError(f"{where}: not a handoff-codec backup file (no whole line)")

    @classmethod
    def for_read_repair(cls, path: str | os.PathLike[str], store: str, kind: str
                        ) -> BackupWriter:
        """The writer of ``UpgradingSession(write_back=True, backup_file=path)``: creates the
        file, or appends to one of the same store (read-repair in several processes
        shares it), in this format, so ``migrate --restore`` reads it."""
        header = {"store": store, "kind": kind, "shard": "0/1", "written_by": "read-repair"}
        return cls(Path(os.path.abspath(path)), header, append=True, shared=True)

    def write_changes(self, changes: Sequence[Change]) -> None:
        """Append the record of each change (its row's old bytes and the new) and fsync."""
        self.write([(key_json(c.row.key), c.row.session_id, c.row.value, c.new)
                    for c in changes if c.row.value is not None])

    def write(self, rows: Sequence[tuple[list[Any], str, bytes, bytes]]) -> None:
        """Append ``(key, session_id, old, new)`` records and fsync them."""
        if not rows:
            return
        data = b"".join(_line({"key": key, "session_id": session_id,
                               "old": old.decode("utf-8"), "new": new.decode("utf-8")})
                        for key, session_id, old, new in rows)
        if self._fd is None:
            self._fd = self._open()
        fd = self._fd
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if not self.opened:
                data = self._start(fd) + data
            elif self.shared and os.fstat(fd).st_size:
                self._cut_torn_tail(fd, str(self.path))  # another process was stopped
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        self.records += len(rows)
        if not self.opened:
            self.opened = True
            if self._created and self._on_create is not None:
                self._on_create(self.path)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> BackupWriter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _first_line(fd: int, where: str) -> dict[str, Any]:
    """The header of an existing file (its first line)."""
    head = b""
    while b"\n" not in head:
        chunk = os.pread(fd, 1 << 16, len(head))
        if not chunk:
            break
        head += chunk
    header = _parse(head.split(b"\n", 1)[0], where, 1) if b"\n" in head else None
    if not isinstance(header, dict) or header.get("handoff_codec_backup") != BACKUP_FORMAT:
        raise StoreError(f"{where}: not a handoff-codec backup file")
    return header


def _count_lines(fd: int, size: int) -> int:
    """The line ends in the first ``size`` bytes of the file, read in chunks."""
    count = offset = 0
    while offset < size:
        chunk = os.pread(fd, min(size - offset, 1 << 20), offset)
        if not chunk:
            break
        count += chunk.count(b"\n")
        offset += len(chunk)
    return count
