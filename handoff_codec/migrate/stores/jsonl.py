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
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar

from . import PlaceholderReport, StoreError, StoreRefusal, StoreReport, StoreResult
from ._files import (
    backup_path,
    copy_backup,
    fsync_dir,
    keep_metadata,
    open_by_others,
    refuse_read_only,
    remove_quietly,
)
from ._options import MigrateOptions
from ._rows import RowRule
from .base import FileStore, register_store

if TYPE_CHECKING:
    pass

__all__ = ["JSONLFileStore", "migrate_jsonl", "not_json_line"]

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


def _migrate_stream(source: IO[bytes], sink: IO[bytes] | None, report: StoreReport,
                    rule: RowRule, bar: Any) -> None:
    for number, raw in enumerate(source, 1):
        if bar is not None:
            bar.update(len(raw))
        body, ending = _split_ending(raw)
        bom = b""
        if number == 1 and body.startswith(_BOM):
            bom, body = _BOM, body[len(_BOM):]
        new = None
        if body.strip():
            outcome = rule(body)
            report.count(outcome, number)
            new = outcome.new
        if sink is not None:
            sink.write(raw if new is None else bom + new + ending)


def _problems(target: Path, given: Path) -> tuple[list[str], list[str]]:
    """(reasons to refuse unless forced, warnings) for replacing ``target`` by a rename."""
    refuse: list[str] = []
    warnings: list[str] = []
    links = target.stat().st_nlink
    if links > 1:
        refuse.append(f"{given} has {links} hard links; the rename would leave the other "
                      "names with the old content")
    holders = open_by_others(target)
    if holders.writers:
        refuse.append(f"{given} is open for writing by {holders.describe(holders.writers)}; "
                      "lines it appends after the rename would go to the old file")
    if not holders.complete:
        warnings.append("could not see every process's open files (not root, or no /proc): "
                        "a writer holding the file open may go undetected")
    return refuse, warnings


def _lock(source: IO[bytes], target: Path, given: Path) -> None:
    """Take the migration lock on the open file, and check it is still the file at ``target``."""
    try:
        fcntl.flock(source.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise StoreRefusal(f"{given}: another migration is running on it; nothing was "
                           "written") from None
    if os.fstat(source.fileno()).st_ino != target.stat().st_ino:
        raise StoreRefusal(f"{given}: was replaced by another migration meanwhile; nothing "
                           "was written (run again to check it)")


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
    if not given.exists():
        raise StoreError(f"{given}: no such file")
    if given.is_dir():
        raise StoreError(f"{given}: is a directory")
    target = given.resolve()  # replace the file a symlink points to, not the link
    report = StoreReport(path=str(given), store="jsonl", dry_run=dry_run,
                         changed_rows=[] if options.list_changes else None,
                         placeholders=PlaceholderReport() if options.restore_empty else None)
    refuse, report.warnings = _problems(target, given)
    if dry_run:
        report.warnings += refuse
    elif refuse and not force:
        raise StoreRefusal("; ".join(refuse) + " (--force to go ahead); nothing was written")
    else:
        refuse_read_only(target)
    bar = progress(target.stat().st_size, "B") if progress else None
    try:
        with target.open("rb") as source:
            if dry_run:
                _migrate_stream(source, None, report, rule, bar)
            else:
                _lock(source, target, given)
                _rewrite(source, target, given, report, rule, bar, backup=options.backup,
                         force=force)
    finally:
        if bar is not None:
            bar.close()
    return report


def _rewrite(source: IO[bytes], target: Path, given: Path, report: StoreReport,
             rule: RowRule, bar: Any, *, backup: bool, force: bool) -> None:
    before = os.fstat(source.fileno())
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".migrating",
                                     dir=target.parent)
    temp = Path(temp_name)
    copy = None
    try:
        with os.fdopen(fd, "wb") as sink:
            keep_metadata(sink.fileno(), target, exact=True)
            _migrate_stream(source, sink, report, rule, bar)
            if report.items_changed == 0:
                return
            sink.flush()
            os.fsync(sink.fileno())
        now = target.stat()
        if (now.st_size, now.st_mtime_ns, now.st_ino) != (
                before.st_size, before.st_mtime_ns, before.st_ino):
            raise StoreRefusal(f"{given}: changed while it was being migrated; nothing was "
                               "written")
        refuse, _ = _problems(target, given)
        if refuse and not force:
            raise StoreRefusal("; ".join(refuse) + " (--force to go ahead); nothing was "
                               "written")
        if backup:
            copy = _backup(target)
            report.backup = str(copy)
        os.replace(temp, target)
        fsync_dir(target.parent)
        report.written = True
    finally:
        if not report.written:
            report.backup = None
            left = remove_quietly(temp, copy)
            if left:
                raise StoreRefusal(f"{given}: the run failed and the file is unchanged, but "
                                   f"{', '.join(map(str, left))} could not be deleted")


def _backup(target: Path) -> Path:
    copy = backup_path(target)
    try:
        os.link(target, copy)
    except OSError:
        copy_backup(target, copy)
    fsync_dir(target.parent)
    return copy


def whole_copy_only(path: Path) -> StoreError:
    """The refusal of ``--restore`` for a file store's own backup (a whole copy)."""
    return StoreError(f"{path}: the backup of a file store is a whole copy "
                      f"({path.name}.bak-<UTC time>): put it back with mv; --restore "
                      "is for server stores and for row backups (UpgradingSession's)")


@register_store
class JSONLFileStore(FileStore):
    """A JSON Lines file of items, migrated whole in one run (a new file put in place)."""

    file_kinds: ClassVar[tuple[str, ...]] = ("jsonl",)
    kind = "jsonl"

    def migrate(self) -> StoreReport:
        return _migrate(self.path, self.options)

    def restore(self, backups: Sequence[str]) -> StoreResult:
        raise whole_copy_only(self.path)
