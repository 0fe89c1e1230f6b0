"""Migrate a JSON Lines file: one item, or one JSON list of items, per line.

The file is streamed line by line into a temporary file in the same folder,
which is flushed, fsynced and renamed over the original with ``os.replace``;
a process killed at any point leaves the old file or the new one. Lines are
copied byte for byte unless a summary on them changes, and then only the
summary's text changes. When nothing changes the original is not touched.

A rename replaces the file's inode, so the temporary file first takes the
original's owner, group, mode and xattrs; and the run refuses (unless
``force``) when another process holds the file open for writing (its writes
would go to the old inode) or the file has other hard links (they would keep
the old content). An exclusive ``flock`` on the original keeps two
migrations from running at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar

from ..rule import RowRule
from ._files import (
    check_is_file,
    fsync_dir,
    keep_metadata,
    killed_run_notes,
    lasting_writers,
    open_by_others,
    refuse_read_only,
    remove_quietly,
    stopped_before_change,
    undo_failed_run,
)
from .backup import Backup, BackupWriter, file_backup, remove_killed_backups, verify_backup
from .base import FileStore, Store, register_store
from .errors import StoreError, StoreRefusal
from .options import MigrateOptions
from .report import BackupRestoreReport, StoreReport
from .restore import newest_first, refuse_dry_run, refuse_foreign, unclosed_file

__all__ = ["JSONLFileStore"]

_BOM = b"\xef\xbb\xbf"


def not_json_line(path: Path) -> int | None:
    """The line that shows ``path`` is no JSON Lines file, or None.

    That is its first line that is not blank, when that line is not JSON (a
    README, a CSV file, a log); an empty file, or one whose first such line
    is JSON, gives None. Reads up to that line only.
    """
    import json

    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            line = raw.removeprefix(_BOM) if number == 1 else raw
            if not line.strip():
                continue
            try:
                json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                return number
            except (ValueError, RecursionError):  # JSON, too big or deep for Python to hold
                return None
            return None
    return None


def _split_ending(raw: bytes) -> tuple[bytes, bytes]:
    if raw.endswith(b"\r\n"):
        return raw[:-2], b"\r\n"
    if raw.endswith(b"\n"):
        return raw[:-1], b"\n"
    return raw, b""


# A line's new bytes (None: kept as it is), from its number and its bytes (ending included).
Transform = Callable[[int, bytes], "bytes | None"]
_Record = tuple[list[Any], str, bytes, bytes]


class _Lines:
    """The source's lines from where the last read stopped: only whole lines (a line end)
    until ``final``, so a line a writer is still appending is never read in halves."""

    def __init__(self, source: IO[bytes], transform: Transform, bar: Any) -> None:
        self.source, self.transform, self.bar = source, transform, bar
        self.number = 0
        self.position = 0

    def read(self, sink: Callable[[bytes], Any] | None, *, final: bool = False) -> int:
        """Transform the lines past ``position`` into ``sink``; how many were read."""
        self.source.seek(self.position)
        count = 0
        for raw in self.source:
            if not raw.endswith(b"\n") and not final:
                break
            self.number += 1
            self.position += len(raw)
            if self.bar is not None:
                self.bar.update(len(raw))
            new = self.transform(self.number, raw)
            if sink is not None:
                sink(raw if new is None else new)
            count += 1
        return count


def _migration(rule: RowRule, report: StoreReport, records: list[_Record]) -> Transform:
    """The per-line rule of a migration: each changed line's record goes to ``records``."""
    def transform(number: int, raw: bytes) -> bytes | None:
        body, ending = _split_ending(raw)
        bom = b""
        if number == 1 and body.startswith(_BOM):
            bom, body = _BOM, body[len(_BOM):]
        if not body.strip():
            return None
        outcome = rule(body)
        report.count(outcome, number)
        if outcome.new is None:
            return None
        records.append(([number], "", bom + body, bom + outcome.new))
        return bom + outcome.new + ending

    return transform


def _problems(target: Path, given: Path) -> tuple[list[str], list[str]]:
    """(reasons to refuse unless forced, warnings) for replacing ``target`` by a rename."""
    refuse: list[str] = []
    warnings: list[str] = []
    links = target.stat().st_nlink
    if links > 1:
        refuse.append(f"{given} has {links} hard links; the rename would leave the other "
                      "names with the old content")
    holders = lasting_writers(target)
    if holders.writers:
        refuse.append(f"{given} is open for writing by {holders.describe(holders.writers)}; "
                      "lines it appends after the rename would go to the old file")
    if not holders.complete:
        warnings.append("could not see every process's open files (not root, or no /proc): "
                        "a writer holding the file open may go undetected")
    return refuse, warnings


def _lock(source: IO[bytes], target: Path, given: Path) -> list[str]:
    """Take the migration lock on the open file, and check it is still the file at
    ``target``; then delete what killed runs left beside it (their temporary files, and
    backups of runs killed before the rename). Returns warnings naming them."""
    try:
        fcntl.flock(source.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise StoreRefusal(f"{given}: another migration is running on it; nothing was "
                           "written") from None
    if os.fstat(source.fileno()).st_ino != target.stat().st_ino:
        raise StoreRefusal(f"{given}: was replaced by another migration meanwhile; nothing "
                           "was written (run again to check it)")
    notes = killed_run_notes(remove_killed_backups(target, jsonl_identity(target)))
    pattern = re.compile(re.escape(f".{target.name}.") + r"[A-Za-z0-9_]{8}\.migrating")
    for entry in target.parent.iterdir():
        if pattern.fullmatch(entry.name) and entry.is_file() and not entry.is_symlink() \
                and not remove_quietly(entry):
            notes.append(f"removed {entry}: the temporary file of a killed run")
    return notes


def migrate_jsonl(path: str | os.PathLike[str], *, options: MigrateOptions | None = None,
                  **keywords: Any) -> StoreReport:
    """Migrate every summary in a JSON Lines file.

    ``options`` (a :class:`MigrateOptions`) gives every option at once; the
    keywords are the same options one by one, for callers of 0.1.
    A backup keeps the original file under ``<name>.bak-<UTC time>`` (a hard
    link where the file system allows, else a copy with the same owner, group
    and mode). Raises :class:`StoreError` when the path is missing or not a
    regular file, and :class:`StoreRefusal` (nothing replaced) when the file
    is read-only, open for writing elsewhere or hard-linked (unless
    ``force``), locked by another migration, or changed during the run.
    ``restore_empty`` also empties placeholder turns, as for ``migrate_sqlite``;
    ``accept_ambiguous`` rewrites ambiguous summaries as read (see ``migrate_item``).
    """
    return _migrate(Path(path), MigrateOptions.given(options, keywords, "migrate_jsonl"))


def _migrate(given: Path, options: MigrateOptions) -> StoreReport:
    dry_run, force, progress = options.dry_run, options.force, options.progress
    rule = options.rule()
    check_is_file(given)
    target = given.resolve()  # replace the file a symlink points to, not the link
    report = StoreReport.start(str(given), "jsonl", options)
    refuse, report.warnings = _problems(target, given)
    if dry_run:
        report.warnings += refuse
    elif refuse and not force:
        raise StoreRefusal("; ".join(refuse) + " (--force to go ahead); nothing was written")
    else:
        refuse_read_only(target)
    bar = progress(target.stat().st_size, "B") if progress else None
    records: list[tuple[list[Any], str, bytes, bytes]] = []
    try:
        with target.open("rb") as source:
            lines = _Lines(source, _migration(rule, report, records), bar)
            if dry_run:
                lines.read(None, final=True)
            else:
                report.warnings += _lock(source, target, given)
                writer = (file_backup(target, options, "jsonl", jsonl_identity(target))
                          if options.backup else None)
                _rewrite(lines, target, given, report, records, writer, force=force)
    finally:
        if bar is not None:
            bar.close()
    return report


def jsonl_identity(path: Path) -> str:
    """A JSONL file as a store: its real path."""
    return f"jsonl:{os.path.realpath(path)}"


_INDEX_BATCH = 4096  # records indexed per insert by a JSONL restore
_SETTLE = 0.005  # seconds between looks at the replaced file's writers
_WATCH = 5.0  # seconds a writer of the replaced file is waited for, at most


def _rewrite(lines: _Lines, target: Path, given: Path, report: StoreReport,
             records: list[_Record], writer: BackupWriter | None, *, force: bool,
             changed: Callable[[], bool] | None = None) -> None:
    """Write the transformed file beside ``target`` and rename it over ``target``, losing
    no line a writer appends meanwhile.

    The lines that grow the file while it is being written are carried over before
    the rename; after it, the old file (still open here) is watched until no process
    holds it open for writing, and every line appended to it meanwhile is carried
    over to the new file (whole lines, appended). Each changed line's record is in
    the backup, fsynced, before a file holding its new bytes is in place.
    """
    source = lines.source
    changes = changed or (lambda: report.items_changed > 0)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".migrating",
                                     dir=target.parent)
    temp = Path(temp_name)
    replaced = False
    try:
        with os.fdopen(fd, "wb") as sink:
            keep_metadata(sink.fileno(), target, exact=True)
            while lines.read(sink.write):  # again for the lines appended meanwhile
                pass
            if not changes():
                return
            _save(writer, records, report)
            refuse, _ = _problems(target, given)
            if refuse and not force:
                raise StoreRefusal("; ".join(refuse) + " (--force to go ahead); nothing was "
                                   "written")
            if os.fstat(source.fileno()).st_ino != target.stat().st_ino:
                raise StoreRefusal(f"{given}: was replaced by another process meanwhile; "
                                   "nothing was written")
            lines.read(sink.write)  # the last lines appended before the rename
            if not open_by_others(target).writers:  # a last line with no end is whole
                lines.read(sink.write, final=True)
            _save(writer, records, report)
            sink.flush()
            os.fsync(sink.fileno())
        old = os.fstat(source.fileno())
        os.replace(temp, target)
        replaced = True
        report.written = True
        fsync_dir(target.parent)
        fcntl.flock(source.fileno(), fcntl.LOCK_UN)  # a writer waiting for it may go on
        _carry_over(lines, target, old, report, records, writer)
    except OSError as exc:
        if replaced:
            raise
        raise stopped_before_change(exc, given, "file",
                                    "temporary file and partial backup are") from None
    finally:
        if writer is not None:
            writer.close()
        if not replaced:
            undo_failed_run(report, writer, given, "file", temp)


def _save(writer: BackupWriter | None, records: list[_Record], report: StoreReport) -> None:
    """Write the pending records and the segment's closing record, fsynced."""
    if writer is None or not records:
        records.clear()
        return
    writer.write(records, sync=False)
    records.clear()
    writer.close_segment()
    report.backup = str(writer.path)


def _carry_over(lines: _Lines, target: Path, old: os.stat_result, report: StoreReport,
                records: list[_Record], writer: BackupWriter | None) -> None:
    """Carry the lines appended to the replaced file over to the new one, until no process
    holds the replaced file open for writing (then its last line is whole too)."""
    deadline = time.monotonic() + _WATCH
    with open(target, "ab") as new:
        def carry(*, final: bool) -> None:
            chunk: list[bytes] = []
            if lines.read(chunk.append, final=final):
                _save(writer, records, report)  # backed up before it is in the new file
                new.write(b"".join(chunk))
                new.flush()

        while True:
            carry(final=False)
            holders = open_by_others(target, inode=(old.st_dev, old.st_ino))
            if not holders.writers:
                carry(final=True)
                os.fsync(new.fileno())
                return
            if time.monotonic() > deadline:
                carry(final=False)
                os.fsync(new.fileno())
                report.warnings.append(
                    f"{holders.describe(holders.writers)} still holds the replaced file open "
                    "for writing: lines it writes from now on go to that file, not this one")
                return
            time.sleep(_SETTLE)


def _restore(store: JSONLFileStore, backups: Sequence[str]) -> BackupRestoreReport:
    """Put back each line of ``backups`` that still holds what a run wrote (``--restore``):
    the file is rewritten as a migration rewrites it, so lines appended meanwhile are
    kept, and a line holding neither value is counted as changed since and kept.

    The records are checked first (digests, the store); a line backed up twice gets
    its oldest value. Digests and offsets of the records are indexed on disk: a line's old
    bytes are read back from its backup when it is restored.
    """
    options = store.options
    refuse_dry_run(options)
    given = store.path
    if not given.exists():
        raise StoreError(f"{given}: no such file")
    target = given.resolve()
    report = BackupRestoreReport(path=str(given), backups=list(backups))
    checked = [verify_backup(backup) for backup in backups]
    for backup in checked:
        refuse_foreign(store, backup, options.force)
        if backup.torn is not None:
            report.warnings.append(backup.torn)
    # line -> (sha256 of its new bytes, sha256 of its old bytes, its backup, the offset
    # of its record there), newest first: an index in SQLite's private temporary
    # database (on disk once past its cache, deleted when closed, a kill included), so
    # memory does not grow with the backup; the old bytes are read back when needed.
    index = sqlite3.connect("")
    try:
        index.execute("CREATE TABLE wanted (line INTEGER, seq INTEGER, new BLOB, old BLOB, "
                      "backup INTEGER, offset INTEGER)")
        ordered = newest_first(checked)
        seq = 0
        for number, backup in enumerate(ordered):
            batch: list[tuple[int, int, bytes, bytes, int, int]] = []
            for offset, record in backup.newest_first_at():
                report.rows += 1
                seq += 1
                batch.append((int(record.key[0]), seq, hashlib.sha256(record.new).digest(),
                              hashlib.sha256(record.old).digest(), number, offset))
                if len(batch) >= _INDEX_BATCH:
                    index.executemany("INSERT INTO wanted VALUES (?, ?, ?, ?, ?, ?)", batch)
                    batch.clear()
            index.executemany("INSERT INTO wanted VALUES (?, ?, ?, ?, ?, ?)", batch)
        index.execute("CREATE INDEX wanted_line ON wanted (line, seq)")
        _restore_lines(target, given, options, report, checked, ordered, index)
    finally:
        index.close()
    return report


def _restore_lines(target: Path, given: Path, options: MigrateOptions,
                   report: BackupRestoreReport, checked: Sequence[Backup],
                   ordered: Sequence[Backup],
                   index: sqlite3.Connection) -> None:
    """Rewrite ``target`` with the lines of the ``index`` put back (``_restore``)."""
    refuse_read_only(target)
    restored: dict[int, int] = {}  # id of a backup -> lines it put back

    def transform(number: int, raw: bytes) -> bytes | None:
        chain = index.execute("SELECT new, old, backup, offset FROM wanted WHERE line = ? "
                              "ORDER BY seq", (number,)).fetchall()
        if not chain:
            return None
        index.execute("DELETE FROM wanted WHERE line = ?", (number,))
        body, ending = _split_ending(raw)
        for new, old, which, offset in chain:
            backup = ordered[which]
            now = hashlib.sha256(body).digest()
            if now == new:
                body = backup.record_at(offset).old
                report.restored += 1
                restored[id(backup)] = restored.get(id(backup), 0) + 1
            elif now == old:
                report.already_old += 1
            else:
                report.changed_since += 1
        return body + ending

    with target.open("rb") as source:
        report.warnings += _lock(source, target, given)
        _rewrite(_Lines(source, transform, None), target, given, StoreReport(
            path=str(given), store="jsonl", dry_run=False), [], None, force=options.force,
            changed=lambda: report.restored > 0)
    report.changed_since += index.execute("SELECT count(*) FROM wanted").fetchone()[0]
    for backup in checked:  # the count above: lines gone
        unclosed_file(backup, restored.get(id(backup), 0), report)


@register_store
class JSONLFileStore(FileStore):
    """A JSON Lines file of items, migrated whole in one run (a new file put in place)."""

    file_kinds: ClassVar[tuple[str, ...]] = ("jsonl",)
    kind = "jsonl"

    def migrate(self) -> StoreReport:
        return _migrate(self.path, self.options)

    @property
    def identity(self) -> str:
        """The file as a store, as its backups name it: its real path."""
        return jsonl_identity(self.path)

    @classmethod
    def check_file(cls, path: Path, options: MigrateOptions) -> None:
        """Refuse a text file whose first line is not JSON (with ``format`` ``auto``)."""
        if options.format != "auto":
            return
        line = not_json_line(path)
        if line is not None:
            raise StoreError(f"{path}: a text file, not JSON Lines (line {line} is not "
                             "JSON): give a JSONL file of items, a SQLite database or a "
                             "store URL (--format jsonl reads it as JSON Lines all the "
                             "same)")

    @classmethod
    def open_file(cls, path: Path, options: MigrateOptions) -> Store:
        if options.encryption_key_env is not None:
            raise StoreError(f"{path}: --encryption-key-env needs a SQLite database or a "
                             "server store URL; this is a JSONL file")
        return cls(str(path), options)

    def restore(self, backups: Sequence[str]) -> BackupRestoreReport:
        """Put back the lines of ``backups`` (this file's runs): each line that still holds
        what a run wrote; every other line, and every line appended since, is kept."""
        return _restore(self, backups)
