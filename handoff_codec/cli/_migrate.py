"""``handoff-codec migrate``: rewrite legacy summaries in a store to the current format.

Exit codes: 0 when every summary is current afterwards (or would be, in a dry
run); 1 when a row or summary was left untouched, or the run failed and
nothing was written; 2 for usage errors (bad flags, a missing file, a file
that is not a session database or JSONL, missing tables).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from . import _migrate_server
from ._options import add_codec_options, codec_from

LIST_LIMIT = 20  # untouched rows listed in the text summary; --json lists them all


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="rewrite legacy summaries in a SQLite session DB or a JSONL file",
        description="Rewrite every legacy summary message in PATH to the canonical current "
                    "format, leaving every other row byte-for-byte alone.",
    )
    parser.add_argument("path", metavar="PATH",
                        help="a SQLiteSession database, or a JSONL file of items")
    parser.add_argument("--dry-run", action="store_true",
                        help="report what would change and write nothing")
    parser.add_argument("--no-backup", dest="backup", action="store_false",
                        help="do not keep a copy of the store before changing it")
    parser.add_argument("--json", action="store_true",
                        help="print a machine-readable report on stdout")
    parser.add_argument("--format", choices=("auto", "jsonl", "sqlite"), default="auto",
                        help="the kind of store (default: auto, from the file's first bytes)")
    parser.add_argument("--sessions-table", default="agent_sessions", metavar="T",
                        help="SQLite sessions table (default: agent_sessions)")
    parser.add_argument("--messages-table", default="agent_messages", metavar="T",
                        help="SQLite messages table (default: agent_messages)")
    parser.add_argument("--batch-size", type=_positive, default=1000, metavar="N",
                        help="SQLite rows read per batch (default: 1000)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar on stderr (default: when stderr is a TTY)")
    add_codec_options(parser)
    _migrate_server.add_options(parser)
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _fail(message: str, code: int) -> int:
    print(f"handoff-codec: error: {message}", file=sys.stderr)
    return code


def _store_kind(path: Path, requested: str) -> str:
    from ..migrate.stores import StoreError
    from ..migrate.stores.sqlite import is_sqlite_file

    if requested == "sqlite":
        return requested
    if not path.exists():
        raise StoreError(f"{path}: no such file")
    if path.is_dir():
        raise StoreError(f"{path}: is a directory")
    if is_sqlite_file(path):
        if requested == "jsonl":
            raise StoreError(f"{path}: is a SQLite database, not a JSONL file")
        return "sqlite"
    if requested == "auto" and path.suffix.lower() in (".db", ".sqlite", ".sqlite3"):
        raise StoreError(f"{path}: not a SQLite database")
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    if b"\x00" in head:
        raise StoreError(f"{path}: neither a SQLite database nor a JSONL file")
    return "jsonl"


def _progress_factory(enabled: bool | None) -> Any:
    from tqdm import tqdm  # type: ignore[import-untyped]

    def factory(total: int, unit: str) -> Any:
        return tqdm(total=total, unit=unit, unit_scale=unit == "B", file=sys.stderr,
                    desc="migrating", disable=None if enabled is None else not enabled,
                    dynamic_ncols=True, leave=False)

    return factory


def run(args: argparse.Namespace) -> int:
    from ..migrate.stores import StoreError, StoreReport
    from ..migrate.stores.jsonl import migrate_jsonl
    from ..migrate.stores.sqlite import migrate_sqlite

    codec = codec_from(args)
    if _migrate_server.handles(args.path):
        return _migrate_server.run(args, codec)
    path = Path(args.path)
    progress = _progress_factory(args.progress)
    report: StoreReport
    try:
        kind = _store_kind(path, args.format)
        if kind == "sqlite":
            report = migrate_sqlite(
                path, codec=codec, dry_run=args.dry_run, backup=args.backup,
                sessions_table=args.sessions_table, messages_table=args.messages_table,
                batch_size=args.batch_size, progress=progress)
        else:
            report = migrate_jsonl(path, codec=codec, dry_run=args.dry_run,
                                   backup=args.backup, progress=progress)
    except StoreError as exc:
        return _fail(str(exc), 2)
    except sqlite3.Error as exc:
        return _fail(f"{path}: {exc}; nothing was written", 1)
    except OSError as exc:
        where = exc.filename or path
        return _fail(f"{where}: {exc.strerror or exc}; nothing was written", 1)
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), ensure_ascii=False,
                                    indent=2) + "\n")
    else:
        sys.stdout.write(_summary(report))
    return 0 if report.ok else 1


def _by_format(counts: dict[str, int]) -> str:
    if not counts:
        return ""
    return " (" + ", ".join(f"{name}: {n}" for name, n in sorted(counts.items())) + ")"


def _summary(report: Any) -> str:
    dry = report.dry_run
    header = f"{report.path} ({report.store}"
    header += ", dry run: nothing written)" if dry else ")"
    fields: list[tuple[str, object]] = []
    if report.sessions is not None:
        fields.append(("sessions", report.sessions))
    fields += [
        ("rows scanned", report.rows_scanned),
        ("summaries found", report.summaries_found),
        ("would migrate" if dry else "migrated",
         f"{report.migrated}{_by_format(report.migrated_by_format)}"),
        ("already current", report.already_current),
        ("left untouched", report.untouched),
    ]
    lines = [header, *(f"  {label + ':':<17} {value}" for label, value in fields)]
    if report.migrated_with_loss_notes:
        lines.append(f"  note: {report.migrated_with_loss_notes} migrated summaries record "
                     "information their old writer had already lost (such as None versus '' "
                     "behind a bare role); migration loses nothing more")
    for row in report.untouched_rows[:LIST_LIMIT]:
        where = f"{'line' if report.store == 'jsonl' else 'row id'} {row.row}"
        if row.index is not None:
            where += f" item {row.index}"
        lines.append(f"    {where}: {row.reason}")
    hidden = len(report.untouched_rows) - LIST_LIMIT
    if hidden > 0:
        lines.append(f"    ... and {hidden} more (see --json)")
    if report.backup:
        lines.append(f"  {'backup:':<17} {report.backup}")
    if not dry and not report.written:
        lines.append("  nothing was written: the store is unchanged")
    return "\n".join(lines) + "\n"
