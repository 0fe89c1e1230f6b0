"""Migrate a JSON Lines file: one item, or one JSON list of items, per line.

The file is streamed line by line into a temporary file in the same folder,
which is flushed, fsynced and renamed over the original with ``os.replace``;
a process killed at any point leaves the old file or the new one. Lines are
copied byte for byte unless a summary on them changes: blank lines, lines
that are not JSON (reported with their number), and every other line keep
their exact bytes, line endings included. When nothing changes the original
file is not touched at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._items import migrate_value
from . import ProgressFactory, StoreError, StoreReport, backup_path, dumps_like, fsync_dir

if TYPE_CHECKING:
    from ..._codec import Codec

__all__ = ["migrate_jsonl"]

_BOM = b"\xef\xbb\xbf"


def _split_ending(raw: bytes) -> tuple[bytes, bytes]:
    if raw.endswith(b"\r\n"):
        return raw[:-2], b"\r\n"
    if raw.endswith(b"\n"):
        return raw[:-1], b"\n"
    return raw, b""


def _parse(body: bytes) -> tuple[Any, str, str | None]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, "", f"not UTF-8 (invalid byte at offset {exc.start})"
    try:
        return json.loads(text), text, None
    except json.JSONDecodeError as exc:
        return None, text, f"invalid JSON: {exc.msg} (column {exc.colno})"
    except RecursionError:
        return None, text, "invalid JSON: nested too deeply"


def _migrate_stream(source: IO[bytes], sink: IO[bytes] | None, report: StoreReport,
                    codec: Codec, bar: Any) -> None:
    for number, raw in enumerate(source, 1):
        if bar is not None:
            bar.update(len(raw))
        body, ending = _split_ending(raw)
        bom = b""
        if number == 1 and body.startswith(_BOM):
            bom, body = _BOM, body[len(_BOM):]
        if not body.strip():
            if sink is not None:
                sink.write(raw)
            continue
        report.rows_scanned += 1
        value, text, error = _parse(body)
        if error is not None:
            report.add_invalid(number, error)
            if sink is not None:
                sink.write(raw)
            continue
        outcome = migrate_value(value, codec=codec)
        report.add(number, outcome, is_list=isinstance(value, list))
        if sink is None:
            continue
        if outcome.changed:
            new = dumps_like(text, value, outcome.value).encode("utf-8")
            sink.write(bom + new + ending)
        else:
            sink.write(raw)


def migrate_jsonl(
    path: str | os.PathLike[str],
    *,
    codec: Codec | None = None,
    dry_run: bool = False,
    backup: bool = True,
    progress: ProgressFactory | None = None,
) -> StoreReport:
    """Migrate every summary in a JSON Lines file.

    A backup keeps the original file under ``<name>.bak-<UTC time>`` (a hard
    link where the file system allows, else a copy). Raises :class:`StoreError`
    when the path is missing or not a regular file, or when the file changed
    while it was being migrated (then nothing is replaced).
    """
    from ... import default_codec

    codec = codec or default_codec
    given = Path(path)
    if not given.exists():
        raise StoreError(f"{given}: no such file")
    if given.is_dir():
        raise StoreError(f"{given}: is a directory")
    target = given.resolve()  # replace the file a symlink points to, not the link
    report = StoreReport(path=str(given), store="jsonl", dry_run=dry_run)
    before = target.stat()
    bar = progress(before.st_size, "B") if progress else None
    try:
        with target.open("rb") as source:
            if dry_run:
                _migrate_stream(source, None, report, codec, bar)
                return report
            fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".migrating",
                                             dir=target.parent)
            temp = Path(temp_name)
            try:
                with os.fdopen(fd, "wb") as sink:
                    _migrate_stream(source, sink, report, codec, bar)
                    if report.migrated == 0:
                        return report
                    sink.flush()
                    os.fsync(sink.fileno())
                os.chmod(temp, before.st_mode & 0o7777)
                now = target.stat()
                if (now.st_size, now.st_mtime_ns, now.st_ino) != (
                        before.st_size, before.st_mtime_ns, before.st_ino):
                    raise StoreError(f"{given}: changed while it was being migrated; "
                                     "nothing was written")
                if backup:
                    report.backup = str(_backup(target))
                os.replace(temp, target)
                fsync_dir(target.parent)
                report.written = True
            finally:
                if not report.written:
                    with contextlib.suppress(FileNotFoundError):
                        temp.unlink()
    finally:
        if bar is not None:
            bar.close()
    return report


def _backup(target: Path) -> Path:
    copy = backup_path(target)
    try:
        os.link(target, copy)
    except OSError:
        partial = copy.with_name(copy.name + ".partial")
        shutil.copy2(target, partial)
        os.replace(partial, copy)
    fsync_dir(target.parent)
    return copy
