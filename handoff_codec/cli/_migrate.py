"""``handoff-codec migrate``: rewrite legacy summaries in a store to the current format.

Exit codes (the project's table): 0 when every summary is current afterwards
(or would be, in a dry run); 1 when a row or summary was left untouched, the
run refused (open writers, hard links, a read-only file, another migration
holding the lock) or failed, and nothing was written; 2 for usage errors (bad
flags, a missing file, a file that is not a session database or JSONL,
missing tables). A migration never exits 3: it never reads lossily (a summary
it cannot read in full is left untouched and exits 1).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import Any

from .._codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from . import _migrate_server
from ._options import add_codec_options, at_least, codec_from, listed, where
from ._restored import placeholder_lines

_DEFAULT_ARGS = argparse.Namespace(preamble=DEFAULT_PREAMBLE, start=DEFAULT_START,
                                   end=DEFAULT_END)


# The on/off switches of ``migrate`` (files and server stores alike).
_SWITCHES = (
    ("--dry-run", "report what would change and write nothing"),
    ("--list", "list every row whose summary is (or would be) rewritten"),
    ("--legacy-only", "leave alone 0.20+ summaries whose only change would be sorted JSON keys"),
    ("--restore-empty", "also turn every turn whose whole text is a known empty-turn "
     "placeholder ('.', '(empty)', LiteLLM's...) back into an empty turn, in summaries and in "
     "stored items; a turn that starts with one and goes on is reported, never cut"),
    ("--accept-ambiguous", "also rewrite, as read, summaries whose split into records rests "
     "on no evidence of their writer (recovery 'ambiguous'); by default they are left "
     "untouched and listed"),
    ("--force", "JSONL: go ahead although another process has the file open for writing, or "
     "it has other hard links"),
    ("--json", "print a machine-readable report on stdout"),
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="rewrite legacy summaries in a SQLite session DB or a JSONL file",
        description="Rewrite every legacy summary message in PATH to the canonical current "
                    "format, leaving every other row byte-for-byte alone.",
    )
    parser.add_argument("path", metavar="PATH",
                        help="a SQLiteSession database, or a JSONL file of items")
    parser.add_argument("--no-backup", dest="backup", action="store_false",
                        help="do not keep a copy of the store before changing it")
    for flag, text in _SWITCHES:
        parser.add_argument(flag, action="store_true", help=text)
    parser.add_argument("--format", choices=("auto", "jsonl", "sqlite"), default="auto",
                        help="the kind of store (default: auto, from the file's first bytes)")
    for table in ("sessions", "messages"):  # SQLiteSession's and SQLAlchemySession's names
        parser.add_argument(f"--{table}-table", default=f"agent_{table}", metavar="T",
                            help=f"the {table} table (default: agent_{table})")
    parser.add_argument("--batch-size", type=at_least(int, 1), default=1000, metavar="N",
                        help="SQLite rows read per batch (default: 1000)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar on stderr (default: when stderr is a TTY)")
    add_codec_options(parser)
    _migrate_server.add_options(parser)
    parser.set_defaults(func=run)


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


def _migrate(path: Path, args: argparse.Namespace) -> Any:
    from ..migrate.stores.jsonl import migrate_jsonl
    from ..migrate.stores.sqlite import migrate_sqlite

    common: dict[str, Any] = {
        "codec": codec_from(args), "dry_run": args.dry_run, "backup": args.backup,
        "legacy_only": args.legacy_only, "list_changes": args.list,
        "restore_empty": args.restore_empty, "progress": _progress_factory(args.progress),
        "accept_ambiguous": args.accept_ambiguous}
    if _store_kind(path, args.format) == "sqlite":
        return migrate_sqlite(path, sessions_table=args.sessions_table,
                              messages_table=args.messages_table,
                              batch_size=args.batch_size, **common)
    return migrate_jsonl(path, force=args.force, **common)


def run(args: argparse.Namespace) -> int:
    from ..migrate.stores import StoreError, StoreRefusal

    if _migrate_server.handles(args.path):
        return _migrate_server.run(args, codec_from(args))
    path = Path(args.path)
    try:
        report = _migrate(path, args)
    except StoreRefusal as exc:
        return _fail(str(exc), 1)
    except StoreError as exc:
        return _fail(str(exc), 2)
    except sqlite3.Error as exc:
        return _fail(f"{path}: {exc}; nothing was written", 1)
    except OSError as exc:
        where = exc.filename or path
        return _fail(f"{where}: {exc.strerror or exc}; nothing was written", 1)
    if args.json:
        _write(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n")
    else:
        _write(_summary(report) + _changed(report) + _next_step(report, args))
    return 0 if report.ok else 1


def _write(text: str) -> None:
    """Write to stdout, file names that are not valid UTF-8 included (as their bytes)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    buffer.write(text.encode(sys.stdout.encoding or "utf-8", "surrogateescape"))
    buffer.flush()


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
    lines += placeholder_lines(report, "line" if report.store == "jsonl" else "row id")
    if report.migrated_with_loss_notes:
        lines.append(f"  note: {report.migrated_with_loss_notes} migrated summaries record "
                     "information their old writer had already lost (such as None versus '' "
                     "behind a bare role); migration loses nothing more")
    noun = "line" if report.store == "jsonl" else "row id"
    lines += listed(report.untouched_rows,
                    lambda row: f"{where(f'{noun} {row.row}', row.index)}: {row.reason}")
    if report.backup:
        lines.append(f"  {'backup:':<17} {report.backup}")
    if not dry and not report.written:
        lines.append("  nothing was written: the store is unchanged")
    if not dry:
        lines += [f"  warning: {warning}" for warning in report.warnings]
    return "\n".join(lines) + "\n"


def _changed(report: Any) -> str:
    """With ``--list``: one line per row whose summary is (or would be) rewritten."""
    if report.changed_rows is None:
        return ""
    noun = "line" if report.store == "jsonl" else "row id"
    lines = [f"  {'would rewrite' if report.dry_run else 'rewritten'}:"]
    for row in report.changed_rows:
        where = f"{noun} {row.row}" + (f" item {row.index}" if row.index is not None else "")
        what = "key order only" if row.key_order_only else (row.format or "summary")
        if row.restored and row.format is None and not row.key_order_only:
            what = "placeholder emptied"
        elif row.restored:
            what += f", {row.restored} placeholder turns emptied"
        lines.append(f"    {where}: {what}")
    return "\n".join(lines) + "\n"


def _next_step(report: Any, args: argparse.Namespace) -> str:
    """After a dry run: the command that does it, and where its backup will go."""
    if not report.dry_run:
        return ""
    lines = []
    if report.key_order_only:
        lines.append(f"  {report.key_order_only} of these rewrites only sort the JSON keys of "
                     "0.20+ summaries" + ("" if args.legacy_only else
                                          "; --legacy-only leaves them alone"))
    if report.skipped_key_order:
        lines.append(f"  left alone (--legacy-only): {report.skipped_key_order} rewrites that "
                     "would only sort JSON keys")
    lines += [f"  warning: {warning}" for warning in report.warnings]
    if not report.items_changed:
        return "\n".join([*lines, "next: nothing to migrate"]) + "\n"
    where = Path(report.path)
    backup = (f"{where.name}.bak-<UTC time> in {where.resolve().parent}" if args.backup
              else "none (--no-backup)")
    lines += [f"next: {_command(args)}", f"  backup: {backup}"]
    return "\n".join(lines) + "\n"


def _command(args: argparse.Namespace) -> str:
    """The real run's command line: this one's options, without --dry-run, --list, --json."""
    words = ["handoff-codec", "migrate", args.path]
    flags = {"backup": "--no-backup", "legacy_only": "--legacy-only", "force": "--force",
             "restore_empty": "--restore-empty", "accept_ambiguous": "--accept-ambiguous"}
    words += [flag for name, flag in flags.items()
              if getattr(args, name) is (name != "backup")]
    defaults = {"format": "auto", "sessions_table": "agent_sessions",
                "messages_table": "agent_messages", "batch_size": 1000}
    for name, default in defaults.items():
        if getattr(args, name) != default:
            words += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    for name in ("preamble", "start", "end"):
        if getattr(args, name) != getattr(_DEFAULT_ARGS, name):
            words += [f"--{name}", getattr(args, name)]
    return " ".join(shlex.quote(word) for word in words)
