"""``handoff-codec migrate``: rewrite legacy summaries in a store to the current format.

Exit codes (the project's table): 0 when every summary is current afterwards
(or would be, in a dry run); 1 when a row or summary was left untouched, the
run refused (open writers, hard links, a read-only file, another migration
holding the lock) or failed, and nothing was written; 2 for usage errors (bad
flags, a missing file, a directory or a text file, flags only a server store
takes given with a file, an unsupported URL scheme or URL option, a missing
driver, a backup file that exists; once connected, missing tables); 4 when
the store's server cannot be reached (worth retrying); 130 when interrupted
(Ctrl-C), with the command that continues. A migration never exits 3: it
never reads lossily (a summary it cannot read in full is left untouched and
exits 1).

Usage errors are found before anything is touched (:func:`check_usage`: no
connection, no backup file). Every store, a file path or a URL, is then
opened by ``stores.open_store`` with the one ``MigrateOptions`` built from
the flags (:func:`options_from`), and every report is printed in one shape
(``_report``): in a dry run the JSON says ``would_migrate`` (and
``would_migrate_by_format``, ``would_migrate_with_loss_notes``) where a real
run says ``migrated``, and the backups are one list, ``backups``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sqlite3
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from . import _migrate_server
from ._exits import (
    EXIT_INTERRUPTED,
    EXIT_PROBLEMS,
    EXIT_TERMINATED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    CliError,
)
from ._io import report_error
from ._options import add_codec_options, at_least, codec_from, listed, where
from ._report import next_line, problem, shape
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
    ("--forget", "clear the store's migration state (checkpoints, and the local record of "
     "its backup files) and change nothing else"),
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="rewrite legacy summaries in a store: a JSONL file, a SQLite session DB, or a "
             "server store URL",
        usage="%(prog)s STORE [options]",
        description="Rewrite every legacy summary message in STORE to the canonical current "
                    "format, leaving every other row byte-for-byte alone.",
    )
    parser.add_argument("path", metavar="STORE",
                        help="a JSONL file of items, a SQLiteSession database, or a server "
                             "store URL (postgresql://, mysql://, mariadb://, sqlite:///, "
                             "redis://, rediss://, unix://)")
    parser.add_argument("--no-backup", dest="backup", action="store_false",
                        help="do not keep a copy of the store before changing it")
    for flag, text in _SWITCHES:
        parser.add_argument(flag, action="store_true", help=text)
    parser.add_argument("--format", choices=("auto", "jsonl", "sqlite"), default="auto",
                        help="the kind of store (default: auto, from the file's first bytes)")
    for table in ("sessions", "messages"):  # SQLiteSession's and SQLAlchemySession's names
        parser.add_argument(f"--{table}-table", default=f"agent_{table}", metavar="T",
                            help=f"the {table} table (default: agent_{table})")
    parser.add_argument("--batch-size", type=at_least(int, 1, _migrate_server.MAX_BATCH),
                        default=1000, metavar="N",
                        help="rows read per batch, and per transaction of a server store "
                             "(default: 1000)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar on stderr (default: when stderr is a TTY)")
    add_codec_options(parser)
    _migrate_server.add_options(parser)
    parser.set_defaults(func=run)


def _progress_factory(enabled: bool | None) -> Any:
    """The progress bar's factory (rows or bytes done, rate, time left), or None when there
    is no bar: --no-progress, or (by default) stderr is not a terminal."""
    if not (sys.stderr.isatty() if enabled is None else enabled):
        return None
    from tqdm import tqdm  # type: ignore[import-untyped]

    def factory(total: int | None, unit: str) -> Any:
        return tqdm(total=total, unit=unit, unit_scale=unit == "B", file=sys.stderr,
                    desc="migrating", dynamic_ncols=True, leave=False,
                    mininterval=0)  # each batch drawn: the last one shows the total done

    return factory


def options_from(args: argparse.Namespace) -> Any:
    """The one ``MigrateOptions`` for these flags (files and server stores alike)."""
    from ..migrate.stores import MigrateOptions

    return MigrateOptions(
        codec=codec_from(args), dry_run=args.dry_run, backup=args.backup,
        backup_file=args.backup_file, legacy_only=args.legacy_only,
        restore_empty=args.restore_empty, accept_ambiguous=args.accept_ambiguous,
        list_changes=args.list, batch_size=args.batch_size,
        progress=_progress_factory(args.progress),
        force=args.force, format=args.format, sessions_table=args.sessions_table,
        messages_table=args.messages_table, pause=args.pause, resume=args.resume,
        shard=_migrate_server.shard_from(args), workers=args.workers,
        key_prefix=args.key_prefix, lock_ttl=args.lock_ttl,
        encryption_key_env=args.encryption_key_env,
        job_id=(os.environ.get(_migrate_server.JOB_VARIABLE) or None)
        if args.shard_from_env else None)


# Flags only a server store takes (a URL, or a SQLite file with --encryption-key-env),
# with their defaults: given with a file store, they are a usage error, never ignored.
_SERVER_ONLY = (("pause", 0.0), ("shard", None), ("shard_from_env", False), ("shards", None),
                ("resume", False), ("key_prefix", "agents:session"), ("lock_ttl", 60.0))
# Flags only a migration run takes: given with --restore or --forget they would be ignored.
_RUN_ONLY = (("resume", False), ("shard", None), ("shard_from_env", False), ("shards", None),
             ("workers", 1), ("backup_file", None), ("backup", True), ("legacy_only", False),
             ("restore_empty", False), ("accept_ambiguous", False), ("list", False),
             ("pause", 0.0))
# Flags that apply to some kinds of store only, by the kind that does not take them.
_NOT_FOR = {
    "jsonl": (("workers", 1), ("sessions_table", "agent_sessions"),
              ("messages_table", "agent_messages")),
    "sqlite": (("force", False),),
    "sql": (("force", False), ("key_prefix", "agents:session"), ("lock_ttl", 60.0)),
    "redis": (("force", False), ("sessions_table", "agent_sessions"),
              ("messages_table", "agent_messages")),
}
_FLAG = {"backup": "--no-backup"}
_KIND_NAMES = {"jsonl": "a JSONL file", "sqlite": "a SQLite file", "sql": "a SQL store",
               "redis": "a Redis store"}


def _given(args: argparse.Namespace, flags: tuple[tuple[str, Any], ...]) -> list[str]:
    """The flags of ``flags`` (name, default) given a value other than their default."""
    return [_FLAG.get(name, f"--{name.replace('_', '-')}") for name, default in flags
            if getattr(args, name) != default]


def _file_store(args: argparse.Namespace) -> bool:
    """Whether STORE is a file migrated whole (JSONL, or SQLite without encryption)."""
    return not _migrate_server.is_url(args.path) and args.encryption_key_env is None


def _store_kind(args: argparse.Namespace) -> str:
    """``jsonl``, ``sqlite`` (a file migrated whole), ``sql`` or ``redis`` (server stores)."""
    from ..migrate.stores import RedisListStore, file_kind, url_scheme

    scheme = url_scheme(args.path)
    if scheme is not None:
        return "redis" if scheme in RedisListStore.schemes else "sql"
    if args.encryption_key_env is not None:
        return "sql"  # a SQLite file of EncryptedSession rows, through its sqlite:/// URL
    kind: str = file_kind(Path(args.path), args.format)
    return kind


def check_usage(args: argparse.Namespace, options: Any) -> None:
    """Every usage error that needs no connection: CliError (exit 2), nothing touched.

    The STORE itself (``stores.check_target``: a missing file, a directory, a
    text file, an unknown URL scheme or option, a missing driver); conflicting
    actions; flags the action or the kind of store does not take; a backup to
    restore that is no file; and for a run that writes a backup, a
    ``--backup-file`` that exists or whose directory takes no new file, and a
    local state directory that cannot be made.
    """
    from ..migrate.stores import StoreError, check_target, scrub

    try:
        check_target(args.path, options)
    except StoreError as exc:
        raise CliError(scrub(str(exc), args.path), EXIT_USAGE) from None
    if args.forget and args.restore:
        raise CliError("--forget and --restore are two actions: run one, then the other",
                       EXIT_USAGE)
    if not args.backup and args.backup_file is not None:
        raise CliError("--no-backup and --backup-file: one says to write no backup, the "
                       "other where to write it; give one", EXIT_USAGE)
    action = "--forget" if args.forget else "--restore" if args.restore else None
    if action is not None and (given := _given(args, _RUN_ONLY)):
        raise CliError(f"{', '.join(given)}: only for a migration run, not with {action}",
                       EXIT_USAGE)
    try:
        kind = _store_kind(args)
        if _file_store(args) and (given := _given(args, _SERVER_ONLY)):
            raise CliError(f"{args.path}: {', '.join(given)}: only for server stores (a URL, "
                           "or a SQLite file with --encryption-key-env); a file store is "
                           "migrated whole in one step", EXIT_USAGE)
        # --force restores another store's backup: every kind of store takes it then.
        not_for = tuple(flag for flag in _NOT_FOR[kind]
                        if not (args.restore and flag[0] == "force"))
        if given := _given(args, not_for):
            raise CliError(f"{', '.join(given)}: not for {_KIND_NAMES[kind]}", EXIT_USAGE)
        if _migrate_server.is_url(args.path) and args.format != "auto":
            raise CliError("--format: only for a file path; a URL names its kind of store",
                           EXIT_USAGE)
        for backup in args.restore or ():
            _check_readable(backup)
        if args.restore and args.dry_run and _file_store(args):
            raise CliError("--restore of a file store takes no --dry-run (it reads the rows "
                           "as it writes them back); nothing was read or written", EXIT_USAGE)
        if not (args.dry_run or args.restore or args.forget):
            _check_backup_paths(args, options)
    except StoreError as exc:
        raise CliError(scrub(str(exc), args.path), EXIT_USAGE) from None


def _check_readable(backup: str) -> None:
    """A backup to restore must be a readable file (nothing is connected to otherwise)."""
    if not os.path.lexists(backup):
        raise CliError(f"{backup}: no such file (the backup to restore)", EXIT_USAGE)
    if not os.path.isfile(backup):
        raise CliError(f"{backup}: not a file (the backup to restore)", EXIT_USAGE)
    try:
        with open(backup, "rb"):
            pass
    except OSError as exc:
        raise CliError(f"{backup}: {exc.strerror or exc} (the backup to restore)",
                       EXIT_USAGE) from None


def _check_backup_paths(args: argparse.Namespace, options: Any) -> None:
    """A run's backup files can be made (a server store's: also the local state)."""
    from ..migrate.stores import check_state_dir, named_backup_files, writable_dir

    if not args.backup:
        return
    file_store = _file_store(args)
    if file_store:  # its backup goes beside the file unless --backup-file names one
        named = [Path(os.path.abspath(options.backup_file))] if options.backup_file else []
    else:
        named = named_backup_files(options)
    store_file = os.path.abspath(args.path) if file_store else None
    for path in named:
        if store_file is not None and str(path) in {store_file + tail for tail in (
                "", "-wal", "-shm", "-journal")}:
            raise CliError(f"{path}: is the store's own file (SQLite keeps its write-ahead "
                           "log, shared memory and journal beside the database as -wal, -shm "
                           "and -journal); name another with --backup-file", EXIT_USAGE)
        if os.path.lexists(path):
            if not args.resume:
                raise CliError(f"{path}: the backup file exists; name another with "
                               "--backup-file", EXIT_USAGE)
            continue
        problem = writable_dir(path.parent)
        if problem is not None:
            raise CliError(f"{path}: the backup file cannot be created ({path.parent}: "
                           f"{problem}); name another with --backup-file", EXIT_USAGE)
    if file_store:
        return
    if not args.backup_file and not args.resume:
        problem = writable_dir(Path.cwd())
        if problem is not None:
            raise CliError(f"{Path.cwd()}: the backup file cannot be created in the working "
                           f"directory ({problem}); name one with --backup-file", EXIT_USAGE)
    check_state_dir()


def run(args: argparse.Namespace) -> int:
    from ..migrate.stores import (
        StoreError,
        StoreRefusal,
        StoreResult,
        StoreUnreachable,
        mask_url,
        open_store,
        scrub,
        stopped_run,
    )

    where = mask_url(args.path)

    def fail(message: str, code: int) -> int:
        return report_error(scrub(message, args.path), code, as_json=args.json)

    options = options_from(args)
    check_usage(args, options)
    try:
        with _stops_handled():
            store = open_store(args.path, options)
            if args.forget:
                result: StoreResult = store.forget()
            elif args.restore:
                result = store.restore(args.restore)
            else:
                result = store.migrate()
    except Terminated as exc:
        return fail(_interrupted(args, exc, "terminated (SIGTERM)"), EXIT_TERMINATED)
    except KeyboardInterrupt as exc:
        return fail(_interrupted(args, exc, "interrupted"), EXIT_INTERRUPTED)
    except StoreRefusal as exc:
        return fail(_stopped(args, exc, str(exc)), EXIT_PROBLEMS)
    except StoreUnreachable as exc:
        return fail(_stopped(args, exc, str(exc)), _unreachable_code(exc))
    except StoreError as exc:
        return fail(_stopped(args, exc, str(exc)), EXIT_USAGE)
    except sqlite3.Error as exc:
        return fail(f"{where}: {exc}; nothing was written", EXIT_PROBLEMS)
    except OSError as exc:
        place = exc.filename or where
        return fail(_stopped(args, exc, f"{place}: {exc.strerror or exc}"), EXIT_PROBLEMS)
    except Exception as exc:  # a driver error (connection lost, lock timeout)
        if not _migrate_server.is_url(args.path):
            raise
        code = _migrate_server.exit_code(exc)
        if stopped_run(exc) is not None:
            text = str(exc).splitlines()[0] if str(exc) else ""
            return fail(_stopped(args, exc, f"{where}: {type(exc).__name__}: {text}"),
                        _unreachable_code(exc) if code == EXIT_UNREACHABLE else code)
        return fail(_migrate_server.driver_error(where, exc, args), code)
    for warning in result.notes:
        print(f"handoff-codec: warning: {warning}", file=sys.stderr)
    code = 0 if result.ok and not result.changed_under_run else 1
    following = _next_command(result, args)
    if args.json:
        document = _document(result, code, following)
        _write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    elif result.action == "forget":
        _write(_migrate_server.forget_summary(result))
    elif result.action == "restore":
        _write(_migrate_server.restore_summary(result))
    else:
        _write(_summary(result) + _changed(result) + _next_step(result, args, following))
    return code


class Terminated(BaseException):
    """SIGTERM, raised where the run is, so that it stops as after Ctrl-C: its open batch
    rolled back, its lock released, and a line that says what it had committed."""


@contextlib.contextmanager
def _stops_handled() -> Iterator[None]:
    """While the action runs, SIGTERM raises :class:`Terminated` and SIGINT
    KeyboardInterrupt in the main thread, each held while a batch is being written (so
    that the rows a stopped run says it committed are the rows it committed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from ..migrate.stores import stop_when_written

    def terminate(signum: int, frame: Any) -> None:
        stop_when_written(Terminated() if signum == signal.SIGTERM else KeyboardInterrupt())

    earlier = {number: signal.signal(number, terminate)
               for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, handler in earlier.items():
            signal.signal(number, handler)


def _unreachable_code(exc: BaseException) -> int:
    """4 when the server could not be reached and this attempt changed nothing; 1 when the
    connection was lost after the run had committed rows."""
    from ..migrate.stores import stopped_run

    stop = stopped_run(exc)
    return EXIT_PROBLEMS if stop is not None and stop.committed else EXIT_UNREACHABLE


def _stopped(args: argparse.Namespace, exc: BaseException, reason: str) -> str:
    """``reason``, and for a server-store run that stopped part-way: what it committed and
    the commands that go on and that undo it."""
    from ..migrate.stores import stopped_run

    stop = stopped_run(exc)
    if stop is None or args.dry_run or args.restore or args.forget:
        return reason
    reason = reason.split("; nothing was written")[0].split(": the run stopped part-way")[0]
    earlier = " (the runs it resumed committed more)" if stop.resumed else ""
    if stop.backup is None:
        kept = "with no backup (--no-backup)"
        undo = ""
    else:
        kept = f"each with its old value in the backup file {stop.backup}"
        undo = (f"; to undo: handoff-codec migrate {shlex.quote(_masked(args))} --restore "
                f"{shlex.quote(stop.backup)}{_store_options(args)}")
    committed = (f"it had changed and committed {stop.committed} rows{earlier}, {kept}"
                 if stop.committed else f"it had committed no rows{earlier}")
    return (f"{reason}; the run stopped part-way: {committed}; to go on: "
            f"{_command(args, resume=True)}{undo if stop.committed or stop.resumed else ''}")


def _masked(args: argparse.Namespace) -> str:
    from ..migrate.stores import mask_url

    return str(mask_url(args.path))


def _store_options(args: argparse.Namespace) -> str:
    """The options that name the same rows in another command (a restore)."""
    words: list[str] = []
    for name, default in (("messages_table", "agent_messages"),
                          ("key_prefix", "agents:session")):
        if getattr(args, name) != default:
            words += [f"--{name.replace('_', '-')}", getattr(args, name)]
    return "".join(f" {shlex.quote(word)}" for word in words)


def _interrupted(args: argparse.Namespace, exc: BaseException, what: str) -> str:
    """The one line after Ctrl-C or SIGTERM: what the store holds now, and the command
    that goes on."""
    if args.dry_run:
        return f"{what}; a dry run writes nothing: the store is unchanged"
    if args.forget:
        return f"{what}; run the same command again to finish forgetting"
    if args.restore:
        return (f"{what}; rows already put back stay so: run the same --restore again "
                "to finish")
    if _file_store(args):
        return (f"{what}; a file store is rewritten in one step: it is as it was, or "
                "fully migrated; run the same command again (it finishes, or finds nothing "
                "to do)")
    from ..migrate.stores import stopped_run

    if stopped_run(exc) is not None:
        return _stopped(args, exc, what)
    files = "files (one per shard)" if args.workers > 1 else "file"
    kept = (f"rows already written are in the backup {files}" if args.backup else
            "rows already written have no backup (--no-backup)")
    return f"{what}; {kept}; to continue: {_command(args, resume=True)}"


_DRY_NAMES = {"migrated": "would_migrate", "migrated_by_format": "would_migrate_by_format",
              "migrated_with_loss_notes": "would_migrate_with_loss_notes"}


def _document(result: Any, code: int, following: str | None) -> dict[str, Any]:
    """The ``--json`` report: the store's report, its dry-run counts named as such, one
    ``backups`` list, and the keys of every report (``_report``)."""
    dumped: dict[str, Any] = result.model_dump(mode="json")
    if result.action != "migrate":  # --restore, --forget
        return {**dumped, **_maintenance_shape(result, code)}
    document: dict[str, Any] = {}
    backups = list(dumped.get("backups") or [])
    for name, value in dumped.items():
        if name == "backup":  # a file store's one backup: in the list, as a server store's
            document["backups"] = backups if value in (None, *backups) else [value, *backups]
        elif name != "backups":
            document[_DRY_NAMES.get(name, name) if result.dry_run else name] = value
    problems = _problems(result)
    counts: dict[str, int] = {} if result.sessions is None else {"sessions": result.sessions}
    counts |= {"rows_scanned": result.rows_scanned,
               "summaries_found": result.summaries_found,
               ("would_migrate" if result.dry_run else "migrated"): result.migrated,
               "already_current": result.already_current, "untouched": result.untouched,
               "invalid_rows": result.invalid_rows}
    if result.server:
        counts["changed_under_us"] = result.changed_under_run
    return {**document, **shape(exit_code=code, items=result.items_scanned, problems=problems,
                                counts=counts, next_command=following)}


def _maintenance_shape(result: Any, code: int) -> dict[str, Any]:
    """The keys of every report, for ``--restore`` and ``--forget``."""
    if result.action == "forget":
        return shape(exit_code=code, items=0, problems=[], next_command=None,
                     counts={"checkpoints": result.checkpoints,
                             "local_records": result.local_records})
    problems = []
    if result.changed_since:
        problems.append(problem(result.path, "changed_since", f"{result.changed_since} rows "
                                "hold neither the migrated value nor the old one: left as they "
                                "are", "error"))
    problems += [problem(result.path, "warning", warning, "warning")
                 for warning in result.warnings]
    return shape(exit_code=code, items=result.rows, problems=problems, next_command=None,
                 counts={"restored": result.restored, "already_old": result.already_old,
                         "changed_since": result.changed_since, "missing": result.missing,
                         "files_missing": result.files_missing})


def _problems(report: Any) -> list[dict[str, Any]]:
    """A migration's problems, each once: rows left untouched, rows changed under the run,
    placeholder leaks, warnings, and the loss notes of migrated summaries."""
    found = []
    for row in report.untouched_rows:
        place = {name: value for name, value in row.model_dump(mode="json").items()
                 if name in ("row", "index", "key", "format") and value is not None}
        found.append(problem(_place(report, row), "untouched", row.reason, "error", **place))
    if report.changed_under_run:
        found.append(problem(report.path, "changed_under_us", f"{report.changed_under_run} rows "
                             "changed under the run and were left alone; run it again to "
                             "migrate them", "error"))
    noun = _noun(report)
    for leak in report.placeholders.leaks if report.placeholders else []:
        row = f"{noun} {leak.row}" if noun else str(leak.key)
        found.append(problem(where(row, leak.index, leak.turn), "placeholder_leak",
                             f"a turn starts with the placeholder {leak.placeholder!r} and goes "
                             f"on: {leak.text!r} (reported, never cut)", "warning"))
    found += [problem(report.path, "warning", warning, "warning")
              for warning in report.warnings]
    if report.migrated_with_loss_notes:
        which = "summaries that would be migrated" if report.dry_run else "migrated summaries"
        found.append(problem(report.path, "loss_notes", f"{report.migrated_with_loss_notes} "
                             f"{which} record information their old writer had already "
                             "lost; migration loses nothing more", "info"))
    return found


def _next_command(result: Any, args: argparse.Namespace) -> str | None:
    """The command to run next: after a dry run that would change items, the run itself;
    after a run that left rows changed under it, the same run again."""
    if result.action != "migrate":
        return None
    if result.dry_run:
        return _command(args) if result.items_changed else None
    if result.changed_under_run:
        return _command(args)
    return None


def _write(text: str) -> None:
    """Write to stdout, file names that are not valid UTF-8 included (as their bytes)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    buffer.write(text.encode(sys.stdout.encoding or "utf-8", "surrogateescape"))
    buffer.flush()


# The format labels of a report (--json keeps them), in a user's words for the text.
_WRITTEN_BY = {
    "legacy-0.6-0.17.0": "written by openai-agents 0.6 to 0.17.0",
    "legacy-0.17.1-0.19": "written by openai-agents 0.17.1 to 0.19",
    "legacy": "written by an older writer the text does not pin down",
    "current": "in the current format (openai-agents 0.20 or later)",
}


def _by_format(counts: dict[str, int]) -> str:
    if not counts:
        return ""
    return " (" + "; ".join(
        f"{_WRITTEN_BY.get(name, name)}: {n}" for name, n in sorted(counts.items())) + ")"


def _noun(report: Any) -> str | None:
    """How the report names a row: a JSONL line, a SQLite row id, or (None) its key."""
    if report.store == "jsonl":
        return "line"
    return None if report.server else "row id"


def _place(report: Any, row: Any) -> str:
    noun = _noun(report)
    return where(f"{noun} {row.row}" if noun else str(row.key), row.index)


def _summary(report: Any) -> str:
    """The text report, one shape for every store (server stores add shards and swaps)."""
    dry = report.dry_run
    shards = report.shards if report.server else None
    # A run of the whole store is shard 0/1: said only when the run is one of several.
    parts = [shard for shard in shards or () if shard != "0/1"]
    header = f"{report.path} ({report.store}" + (f", shards {', '.join(parts)}" if parts
                                                  else "")
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
    if shards is not None:
        fields.append(("changed under us", report.changed_under_us))
    lines = [header, *(f"  {label + ':':<17} {value}" for label, value in fields)]
    lines += placeholder_lines(report, _noun(report))
    if report.migrated_with_loss_notes:
        lines.append(f"  note: {report.migrated_with_loss_notes} migrated summaries record "
                     "information their old writer had already lost (such as None versus '' "
                     "behind a bare role); migration loses nothing more")
    lines += listed(report.untouched_rows, lambda row: f"{_place(report, row)}: {row.reason}")
    backups = [report.backup] if report.backup else report.backups if report.server else []
    lines += [f"  {'backup:':<17} {path}" for path in backups]
    if not dry and not report.written:
        lines.append("  nothing was written: the store is unchanged")
    if not dry:
        lines += [f"  warning: {warning}" for warning in report.warnings]
    return "\n".join(lines) + "\n"


def _changed(report: Any) -> str:
    """With ``--list``: one line per row whose summary is (or would be) rewritten."""
    if report.changed_rows is None:
        return ""
    lines = [f"  {'would rewrite' if report.dry_run else 'rewritten'}:"]
    for row in report.changed_rows:
        where = _place(report, row)
        what = "key order only" if row.key_order_only else (row.format or "summary")
        if row.restored and row.format is None and not row.key_order_only:
            what = "placeholder emptied"
        elif row.restored:
            what += f", {row.restored} placeholder turns emptied"
        lines.append(f"    {where}: {what}")
    return "\n".join(lines) + "\n"


def _next_step(report: Any, args: argparse.Namespace, following: str | None) -> str:
    """After a dry run: the command that does it, and where its backup will go; after a
    run that saw rows change under it: the same run again."""
    if not report.dry_run:
        return "".join(f"{line}\n" for line in next_line(following))
    lines = []
    if report.key_order_only:
        lines.append(f"  {report.key_order_only} of these rewrites only sort the JSON keys of "
                     "0.20+ summaries" + ("" if args.legacy_only else
                                          "; --legacy-only leaves them alone"))
    if report.skipped_key_order:
        lines.append(f"  left alone (--legacy-only): {report.skipped_key_order} rewrites that "
                     "would only sort JSON keys")
    lines += [f"  warning: {warning}" for warning in report.warnings]
    if following is None:
        return "\n".join([*lines, "next: nothing to migrate"]) + "\n"
    if not args.backup:
        backup = "none (--no-backup)"
    elif report.server:
        backup = (str(Path(args.backup_file).absolute()) if args.backup_file else
                  f"handoff-codec-backup-<UTC time>.jsonl in {Path.cwd()}")
    else:
        where = Path(report.path)
        backup = (str(Path(args.backup_file).absolute()) if args.backup_file else
                  f"{where.name}.bak-<UTC time>.jsonl in {where.resolve().parent}")
    lines += [*next_line(following), f"  backup: {backup}"]
    return "\n".join(lines) + "\n"


def _command(args: argparse.Namespace, *, resume: bool = False) -> str:
    """The real run's command line: this one's options, without --dry-run, --list, --json
    (with ``resume``: and with --resume)."""
    from ..migrate.stores import mask_url

    # A password is never printed: a URL's credentials stand masked (***) here too.
    words = ["handoff-codec", "migrate", mask_url(args.path)]
    flags = {"backup": "--no-backup", "legacy_only": "--legacy-only", "force": "--force",
             "restore_empty": "--restore-empty", "accept_ambiguous": "--accept-ambiguous"}
    words += [flag for name, flag in flags.items()
              if getattr(args, name) is (name != "backup")]
    defaults = {"format": "auto", "sessions_table": "agent_sessions",
                "messages_table": "agent_messages", "batch_size": 1000, "pause": 0.0,
                "shard": None, "workers": 1, "key_prefix": "agents:session",
                "lock_ttl": 60.0, "encryption_key_env": None, "backup_file": None,
                "shards": None}
    for name, default in defaults.items():
        if getattr(args, name) != default:
            words += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    if args.shard_from_env:
        words.append("--shard-from-env")
    if resume:
        words.append("--resume")
    for name in ("preamble", "start", "end"):
        if getattr(args, name) != getattr(_DEFAULT_ARGS, name):
            words += [f"--{name}", getattr(args, name)]
    return " ".join(shlex.quote(word) for word in words)
