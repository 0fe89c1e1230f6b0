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
file (the first run, then every ``--resume``) starts with a segment marker; a
file store's run (migrated whole in one step) ends its segment with a closing
record, ``{"end": 1, "records": N, ...}``, written and fsynced before the store
changes.

Every line after the header carries ``"digest"``, last: the SHA-256 of the
previous line's digest (the header's ``id`` for the first), a line end, and the
line's own bytes up to the digest (closed by ``}``). So each record can be
checked, and a record edited, moved, or copied from another file breaks the
chain at its line: :func:`verify_backup` refuses the file, naming the line,
before a restore writes anything. The first digest is seeded from the header's
canonical JSON (``digests: "sha256-chain+header"``), so an edited header breaks
the chain too; files of the earlier chain (``"sha256-chain"``) seed from the id.
Files without digests (development builds, or a header whose ``digests`` was
deleted) are read, but a restore refuses them unless forced.
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
its records were written before their rows changed (``online``): that is
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
import hashlib
import json
import os
import re
import stat
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ._files import backup_path
from ._urls import same_server
from .errors import StoreError
from .row_access import Change

__all__ = ["BackupWriter", "read_backup"]

BACKUP_FORMAT = 1
DIGESTS = "sha256-chain+header"  # the header's ``digests``: every later line carries its
# digest, the first seeded from the header's canonical JSON (so the header is checked too)
_DIGESTS_ID = "sha256-chain"  # earlier files: the first digest seeded from the header's id
_CHAINS = (DIGESTS, _DIGESTS_ID)
_MODE = 0o600
_CHUNK = 1 << 20
_DIGEST_TAIL = re.compile(rb', "digest": "([0-9a-f]{64})"\}$')


def _now() -> str:
    """The time in UTC to the microsecond: two backups of one row made in one second are
    still told apart (a restore reads the newest first)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _seed(header: dict[str, Any]) -> str:
    """The digest the chain starts from: of the header's canonical JSON (sorted keys, no
    spaces), chained after its id; a file of the earlier chain starts from its id."""
    if header.get("digests") != DIGESTS:
        return str(header.get("id"))
    canonical = json.dumps(header, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return _chain(str(header.get("id")), canonical.encode("ascii"))


def key_json(key: Sequence[Any]) -> list[Any]:
    """A row's key as a backup record holds it (bytes as text, as ``row_key`` reads it)."""
    return [k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k for k in key]


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


_escape = json.encoder.encode_basestring_ascii


def _chain(previous: str, body: bytes) -> str:
    return hashlib.sha256(previous.encode("ascii") + b"\n" + body).hexdigest()


def _chained(record: dict[str, Any], previous: str) -> tuple[bytes, str]:
    """The line of ``record`` with its digest (chained after ``previous``), and the digest."""
    body = json.dumps(record, ensure_ascii=True).encode("ascii")
    digest = _chain(previous, body)
    return body[:-1] + b', "digest": "' + digest.encode("ascii") + b'"}\n', digest


@dataclass(frozen=True)
class BackupRecord:
    """One changed row: its key, its session, and its bytes before and after."""

    key: list[Any]
    session_id: str
    old: bytes
    new: bytes
    segment: int


@dataclass
class Backup:
    """A backup file, checked line by line (:func:`verify_backup`) without holding its
    records: its header, segments and record count. ``records`` reads them all;
    :meth:`newest_first` streams them from the end, for a restore."""

    path: str
    header: dict[str, Any]
    segments: int
    count: int  # whole records
    torn: str | None = None  # what was skipped: a last record cut short (one line)
    closed: bool = False  # the last segment ends with its closing record (file stores)
    ends: int = 0  # closing records: none in a file store's backup whose run never committed
    end: int = 0  # the byte offset after the last whole line
    lines: int = 0  # whole lines, blank ones included
    digest: str | None = None  # the chain's last digest (None: no digests)
    _records: list[BackupRecord] | None = field(default=None, repr=False)

    @property
    def checked(self) -> bool:
        """Whether its records carry digests (files of development builds carry none)."""
        return self.digest is not None

    @property
    def id(self) -> str | None:
        """The file's id in the store's checkpoint (None: written before ids existed)."""
        value = self.header.get("id")
        return value if isinstance(value, str) else None

    @property
    def records(self) -> list[BackupRecord]:
        """Every record, in file order (read whole: for small files and tests)."""
        if self._records is None:
            found = list(self.newest_first())
            found.reverse()
            self._records = found
        return self._records

    def newest_first(self) -> Iterator[BackupRecord]:
        """The records from the last to the first, read backwards in chunks: memory holds
        one chunk and one record, however large the file."""
        for _, record in self.newest_first_at():
            yield record

    def newest_first_at(self) -> Iterator[tuple[int, BackupRecord]]:
        """:meth:`newest_first`, each record with the byte offset of its line (for
        :meth:`record_at`)."""
        segment = self.segments
        with open(self.path, "rb") as file:
            for offset, line in _lines_backward(file.fileno(), self.end):
                if not line.strip():
                    continue
                entry = json.loads(line)
                if "handoff_codec_backup" in entry:
                    if segment <= 1:
                        return  # the file's header
                    segment -= 1
                elif "segment" in entry:
                    segment -= 1
                elif "key" in entry:
                    yield offset, _record(entry, max(segment, 1))

    def record_at(self, offset: int) -> BackupRecord:
        """The record whose line starts at ``offset`` (from :meth:`newest_first_at`)."""
        with open(self.path, "rb") as file:
            file.seek(offset)
            return _record(json.loads(file.readline()), 0)


def _record(entry: dict[str, Any], segment: int) -> BackupRecord:
    return BackupRecord(list(entry["key"]), str(entry["session_id"]),
                        entry["old"].encode("utf-8"), entry["new"].encode("utf-8"), segment)


def _lines_backward(fd: int, end: int) -> Iterator[tuple[int, bytes]]:
    """The lines of the file's first ``end`` bytes (``end`` after a line end), last first,
    each with the offset it starts at."""
    position, carry = end, b""
    while position > 0:
        start = max(0, position - _CHUNK)
        data = os.pread(fd, position - start, start) + carry
        parts = data.split(b"\n")
        offset = start + len(data)
        for part in reversed(parts[1:]):
            offset -= len(part)
            yield offset, part
            offset -= 1
        carry = parts[0]
        position = start
    yield 0, carry


def _records(data: bytes) -> list[bytes]:
    """The file's lines: split at ``\\n`` bytes only (never ``str.splitlines``)."""
    lines = data.split(b"\n")
    return [line for line in lines if line.strip()]


def file_store_run(header: dict[str, Any]) -> bool:
    """Whether the file is a file store's run (SQLite file, JSONL): its one segment ends with
    a closing record, written and fsynced before the store changes."""
    return header.get("kind") in ("sqlite", "jsonl") and "written_by" not in header


def _torn_note(where: str, number: int, size: int, header: dict[str, Any]) -> str:
    if file_store_run(header):
        return (f"{where}: line {number}, the last, is a record cut short ({size} bytes, no "
                "line end), and the file has no closing record: its run stopped before it "
                "changed the store, or the file is a copy cut short; skipped")
    return (f"{where}: line {number}, the last, is a record cut short ({size} bytes, no line "
            "end): it was being written when its run stopped, before its row was changed; "
            "skipped")


def read_backup(path: str | os.PathLike[str]) -> Backup:
    """A backup file, checked (:func:`verify_backup`)."""
    return verify_backup(path)


def verify_backup(path: str | os.PathLike[str]) -> Backup:
    """Read a backup file line by line and check it; raise StoreError when it is not one,
    or a line is damaged, edited, moved or from another file (naming the line).

    A last record cut short is skipped (``Backup.torn`` says so). Memory holds
    one line at a time.
    """
    where = str(path)
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise StoreError(f"{where}: {exc.strerror or exc}") from None
    with file:
        first = file.readline()
        header = _header(first, where)
        chained = header.get("digests") in _CHAINS
        digest = _seed(header) if chained else None
        backup = Backup(where, header, 0, 0, end=len(first), lines=1, digest=digest)
        segment_open = False
        for number, raw in enumerate(file, 2):
            if not raw.endswith(b"\n"):
                if raw.strip():
                    backup.torn = _torn_note(where, number, len(raw), header)
                break
            backup.end += len(raw)
            backup.lines += 1
            line = raw[:-1]
            if not line.strip():
                continue
            entry = _parse(line, where, number)
            if not isinstance(entry, dict):
                raise StoreError(f"{where}:{number}: not a backup record")
            if line == first[:-1]:  # a resume's header (development builds): a new segment
                backup.segments += 1
                segment_open, backup.closed = True, False
                continue
            if chained:
                backup.digest = _check_digest(line, backup.digest or "", where, number)
            if "segment" in entry:
                backup.segments += 1
                segment_open, backup.closed = True, False
            elif "end" in entry:
                if entry.get("records") != backup.count:
                    raise StoreError(f"{where}:{number}: the closing record counts "
                                     f"{entry.get('records')!r} records and the file holds "
                                     f"{backup.count}: the backup file is damaged")
                segment_open, backup.closed = False, True
                backup.ends += 1
            elif "handoff_codec_backup" in entry:
                raise StoreError(f"{where}:{number}: the header of another backup file: "
                                 "records of two files were put together")
            else:
                _check_record(entry, where, number)
                backup.count += 1
                if not segment_open:
                    backup.segments += 1
                    segment_open = True
        if backup.count and not backup.segments:
            backup.segments = 1
    return backup


def _header(first: bytes, where: str) -> dict[str, Any]:
    """The header of a backup file, its ``first`` line; StoreError when it is none."""
    if not first.endswith(b"\n"):
        if not first.strip():
            raise StoreError(f"{where}: not a handoff-codec backup file (empty)")
        raise StoreError(f"{where}: not a handoff-codec backup file (no whole line: a "
                         "header cut short, or another file)")
    header = _parse(first, where, 1)
    if not isinstance(header, dict) or header.get("handoff_codec_backup") != BACKUP_FORMAT:
        raise StoreError(f"{where}: not a handoff-codec backup file")
    return header


def _check_digest(line: bytes, previous: str, where: str, number: int) -> str:
    """The digest of ``line``, which must follow ``previous`` in the chain."""
    found = _DIGEST_TAIL.search(line)
    if found is None:
        raise StoreError(f"{where}:{number}: a line without its digest (edited, or from "
                         "another file); nothing was restored")
    digest = found.group(1).decode("ascii")
    if _chain(previous, line[:found.start()] + b"}") != digest:
        raise StoreError(f"{where}:{number}: the record does not match its digest (edited, "
                         "moved, or from another backup file); nothing was restored")
    return digest


def _check_record(entry: dict[str, Any], where: str, number: int) -> None:
    try:
        ok = (isinstance(entry["key"], list) and isinstance(entry["old"], str)
              and isinstance(entry["new"], str) and "session_id" in entry)
        entry["old"].encode("utf-8")
        entry["new"].encode("utf-8")
    except (KeyError, TypeError, AttributeError, UnicodeEncodeError):
        ok = False
    if not ok:
        raise StoreError(f"{where}:{number}: not a backup record (it needs key, session_id, "
                         "old and new)")


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
        self._digest: str | None = None  # the chain's last digest (None: an old file)

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
            header = dict(self.header, id=self.id, created=_now(), digests=DIGESTS)
            self._digest = _seed(header)
            start = _line(header)
            return start + self._marker({"segment": 1, "started": _now(), "resumed": False})
        if self.shared:
            header = _first_line(fd, where)
            self._check_header(header, where, ("store", "kind"))
            self.id = header.get("id") if isinstance(header.get("id"), str) else None
            self._digest = _last_digest(fd, header) if header.get("digests") in _CHAINS \
                else None
            return b""
        backup = verify_backup(self.path)
        self._check_header(backup.header, where, ("store", "kind", "shard"))
        self.id, self.records, self._digest = backup.id, backup.count, backup.digest
        return self._marker({"segment": backup.segments + 1, "started": _now(),
                             "resumed": True})

    def _record(self, key: list[Any], session_id: str, old: bytes, new: bytes) -> bytes:
        """A record's line: the bytes ``json.dumps`` gives for ``{"key", "session_id",
        "old", "new"}`` (ASCII), its two long strings escaped by the json module's C
        escaper directly."""
        body = (f'{{"key": {json.dumps(key)}, "session_id": {_escape(session_id)}, '
                f'"old": {_escape(old.decode("utf-8"))}, '
                f'"new": {_escape(new.decode("utf-8"))}}}').encode("ascii")
        if self._digest is None:
            return body + b"\n"
        self._digest = _chain(self._digest, body)
        return body[:-1] + b', "digest": "' + self._digest.encode("ascii") + b'"}\n'

    def _marker(self, entry: dict[str, Any]) -> bytes:
        """A line of ``entry``, chained when the file carries digests."""
        if self._digest is None:
            return _line(entry)
        line, self._digest = _chained(entry, self._digest)
        return line

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

    def write(self, rows: Sequence[tuple[list[Any], str, bytes, bytes]], *,
              sync: bool = True) -> None:
        """Append ``(key, session_id, old, new)`` records, and fsync them unless ``sync``
        is False (a file store's run: :meth:`close_segment` syncs them all)."""
        if not rows:
            return
        self._append(lambda: b"".join(
            self._record(key, session_id, old, new) for key, session_id, old, new in rows),
            sync=sync)
        self.records += len(rows)

    def close_segment(self) -> None:
        """End this run's segment with its closing record (the file's record count), and
        fsync: a file store's run, before the store changes."""
        if self.opened:
            self._append(lambda: self._marker({"end": 1, "records": self.records,
                                               "closed": _now()}), sync=True)

    def _append(self, make: Any, *, sync: bool) -> None:
        if self._fd is None:
            self._fd = self._open()
        fd = self._fd
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            head = b""
            if not self.opened:
                head = self._start(fd)
            elif self.shared and os.fstat(fd).st_size:
                self._cut_torn_tail(fd, str(self.path))  # another process was stopped
                header = _first_line(fd, str(self.path))
                if self._digest is not None:  # another process may have written since
                    self._digest = _last_digest(fd, header)
            data = head + make()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        if not self.opened:
            self.opened = True
            if self._created and self._on_create is not None:
                self._on_create(self.path)

    @property
    def made(self) -> Path | None:
        """The file, when this writer created it (even if its first write failed, a full
        disk): what a failed run deletes."""
        return self.path if self._created else None

    def sync(self) -> None:
        """fsync what was written (``write(..., sync=False)``)."""
        if self._fd is not None:
            os.fsync(self._fd)

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


def _last_digest(fd: int, header: dict[str, Any]) -> str:
    """The chain's last digest in a file of whole lines: its last line's, or the id."""
    for _, line in _lines_backward(fd, os.fstat(fd).st_size):
        if not line.strip():
            continue
        found = _DIGEST_TAIL.search(line)
        if found is not None:
            return found.group(1).decode("ascii")
        break
    return _seed(header)


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


def remove_killed_backups(store: Path, identity: str) -> list[str]:
    """Delete the backups ``<store>.bak-*.jsonl`` beside ``store`` that runs killed before
    they changed the store left: a backup of this store with no closing record (a file
    store's run writes it, fsynced, before its commit or rename). The caller holds the
    store's write lock, so no run of it is writing one. Returns what was deleted."""
    removed = []
    for path in sorted(store.parent.glob(f"{_glob_escape(store.name)}.bak-*.jsonl")):
        try:
            if not path.is_file() or path.is_symlink() or path.stat().st_uid != os.geteuid():
                continue
            backup = verify_backup(path)
        except (OSError, StoreError):
            continue
        if backup.header.get("identity") == identity and backup.ends == 0:
            try:
                path.unlink()
            except OSError:
                continue
            removed.append(str(path))
    return removed


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


def file_backup(store: Path, options: Any, kind: str, identity: str
                ) -> BackupWriter:
    """The row backup of a file store's run: ``--backup-file``, or a new
    ``<store>.bak-<UTC time>.jsonl`` beside the store; created at its first record."""
    path = (Path(os.path.abspath(options.backup_file)) if options.backup_file
            else backup_path(store.absolute(), ".jsonl"))
    header = {"store": str(store), "kind": kind, "shard": "0/1", "identity": identity}
    return BackupWriter(path, header, append=False)
