"""The server-store flags of ``handoff-codec migrate`` (PostgreSQL, MySQL/MariaDB, Redis, SQLite).

``migrate`` opens every store through ``stores.open_store``; this module adds
the flags only server stores use, turns ``--shard K/N`` or ``--shard-from-env``
(Kubernetes' Indexed Job: ``JOB_COMPLETION_INDEX``) into a shard, and words a
driver's error. Exit codes as for files: 0 when every summary is current (or
would be), 1 when a row was left untouched, changed under us, or could not be
restored, 2 for usage errors, 4 when the server cannot be reached.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from ._exits import EXIT_PROBLEMS, EXIT_UNREACHABLE, EXIT_USAGE, CliError
from ._options import at_least

__all__ = ["INDEX_VARIABLE", "JOB_VARIABLE", "MAX_BATCH", "MAX_LOCK_TTL", "MAX_PAUSE",
           "MAX_SHARDS", "MAX_WORKERS",
           "add_options", "driver_error", "exit_code", "forget_summary", "is_url",
           "restore_summary", "shard_from"]

INDEX_VARIABLE = "JOB_COMPLETION_INDEX"  # set by Kubernetes in each pod of an Indexed Job
# The Job's uid, given to each pod from its label batch.kubernetes.io/controller-uid (the
# downward API): with --shard-from-env, a retried pod of the same Job (same uid, index and
# --shards) takes over the Redis shard lock a killed pod of it left.
JOB_VARIABLE = "HANDOFF_CODEC_JOB_ID"
# The bounds of the numeric flags: beyond them a value is a mistake (a lock held for
# centuries, a pause of a day), never a setting. Kubernetes caps an Indexed Job at
# 100,000 completions.
MAX_SHARDS = 100_000
MAX_WORKERS = 256
MAX_PAUSE = 3600.0  # seconds
MAX_LOCK_TTL = 86_400.0  # seconds: a day
MAX_BATCH = 1_000_000
_CANONICAL_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_CANONICAL_SHARD = re.compile(r"(0|[1-9][0-9]*)/([1-9][0-9]*)", re.ASCII)


def is_url(path: str) -> bool:
    """Whether ``migrate``'s STORE argument is a URL (of any scheme)."""
    from ..migrate.stores import url_scheme

    return url_scheme(path) is not None


def _shard(text: str) -> Any:
    from ..migrate.stores import Shard

    match = _CANONICAL_SHARD.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not K/N (two decimal numbers): {text!r}")
    shard = Shard(int(match.group(1)), int(match.group(2)))
    if not 0 <= shard.index < shard.count:
        raise argparse.ArgumentTypeError(f"not K/N with 0 <= K < N: {text!r}")
    if shard.count > MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"N must be at most {MAX_SHARDS:,}: {text!r}")
    return shard


def shard_from(args: argparse.Namespace, environ: Any = None) -> Any:
    """The shard these flags name: ``--shard K/N``, ``--shard-from-env --shards N``, or all."""
    from ..migrate.stores import Shard

    environ = os.environ if environ is None else environ
    if not args.shard_from_env:
        if args.shards is not None:
            raise CliError("--shards N goes with --shard-from-env", EXIT_USAGE)
        return args.shard or Shard()
    if args.shard is not None:
        raise CliError("use either --shard or --shard-from-env, not both", EXIT_USAGE)
    if args.shards is None:
        raise CliError("--shard-from-env needs --shards N (the Job's completions)", EXIT_USAGE)
    text = environ.get(INDEX_VARIABLE)
    if text is None:
        raise CliError(f"--shard-from-env: the environment variable {INDEX_VARIABLE} is not "
                       "set (it is set in the pods of a Kubernetes Indexed Job)", EXIT_USAGE)
    # Kubernetes writes the index in decimal, without sign, padding or spaces: anything
    # else (" 1", "01", "+1", a fullwidth digit) is not an index it set, and is refused.
    canonical = _CANONICAL_INDEX.fullmatch(text) is not None
    index = int(text) if canonical else -1
    if not 0 <= index < args.shards:
        raise CliError(f"--shard-from-env: {INDEX_VARIABLE}={text!r} is not an index from 0 "
                       f"to {args.shards - 1} written in decimal (--shards {args.shards})",
                       EXIT_USAGE)
    return Shard(index, args.shards)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options only server stores (URLs) use."""
    group = parser.add_argument_group(
        "server stores (STORE is a URL: postgresql://, mysql://, sqlite:///, redis://)")
    group.add_argument("--pause", type=at_least(float, 0, MAX_PAUSE), default=0.0,
                       metavar="SECONDS",
                       help="sleep between batches, to leave the server to the application "
                            "(default: 0)")
    group.add_argument("--shard", type=_shard, default=None, metavar="K/N",
                       help="migrate only the sessions of shard K of N (by session id)")
    group.add_argument("--shard-from-env", action="store_true",
                       help=f"take K from the environment variable {INDEX_VARIABLE} (a "
                            "Kubernetes Indexed Job's pod index), with --shards N; with "
                            f"{JOB_VARIABLE} (the Job's uid) a retried pod takes over the "
                            "Redis shard lock a killed pod of the same Job left")
    group.add_argument("--shards", type=at_least(int, 1, MAX_SHARDS), default=None, metavar="N",
                       help="with --shard-from-env: the number of shards (the Job's "
                            "completions)")
    group.add_argument("--workers", type=at_least(int, 1, MAX_WORKERS), default=1, metavar="N",
                       help="run N shards in N local processes and merge their reports "
                            "(a SQLite file: read its summaries in N processes, one "
                            "writing)")
    group.add_argument("--resume", action="store_true",
                       help="continue each shard from its checkpoint")
    group.add_argument("--backup-file", metavar="PATH",
                       help="the backup of every changed row (default: "
                            "handoff-codec-backup-<UTC time>.jsonl in the working directory; "
                            "one file per shard; a --resume without it appends to the file its "
                            "earlier run recorded in the local state directory)")
    group.add_argument("--restore", action="append", metavar="BACKUP",
                       help="put back the rows of a backup file (repeatable)")
    group.add_argument("--key-prefix", default="agents:session", metavar="P",
                       help="RedisSession key prefix (default: agents:session)")
    group.add_argument("--lock-ttl", type=at_least(float, 1, MAX_LOCK_TTL), default=60.0,
                       metavar="SECONDS",
                       help="expiry of a Redis shard lock, renewed every third of it by a timer "
                            "(default: 60)")
    group.add_argument("--encryption-key-env", metavar="VAR",
                       help="the rows are EncryptedSession envelopes (a server store, or a "
                            "SQLite file); the key is in the environment variable VAR")


def exit_code(exc: BaseException) -> int:
    """4 when a driver's error says the server went away, else 1."""
    from ..migrate.stores import is_unreachable

    return EXIT_UNREACHABLE if is_unreachable(exc) else EXIT_PROBLEMS


def driver_error(where: str, exc: BaseException, args: argparse.Namespace) -> str:
    """One line for a driver's error in the middle of a run, and what to do next."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    if args.restore:
        then = "rows already put back stay so; run the same --restore again to finish"
    elif args.forget:
        then = "run --forget again"
    elif args.dry_run:
        then = "nothing was written"
    elif not args.backup:
        then = ("rows already written were changed with no backup (--no-backup), and "
                "--resume continues")
    else:
        then = "rows already written are in the backup file, and --resume continues"
    return f"{where}: {type(exc).__name__}: {text}; {then}"


def forget_summary(report: Any) -> str:
    dry = getattr(report, "dry_run", False)
    done = "would be deleted" if dry else "deleted"
    return (f"{report.path} (forget{', dry run: nothing written' if dry else ''})\n"
            f"  checkpoints:      {report.checkpoints} {done}\n"
            f"  local records:    {report.local_records} {done}\n")


def restore_summary(report: Any) -> str:
    dry = getattr(report, "dry_run", False)
    return (f"{report.path} (restore{', dry run: nothing written' if dry else ''})\n"
            f"  rows in backup:   {report.rows}\n"
            f"  {'would restore:' if dry else 'restored:':<17} {report.restored}\n"
            f"  already old:      {report.already_old}\n"
            f"  changed since:    {report.changed_since} (left as they are)\n"
            + (f"  missing:          {report.missing} (records the backup should hold)\n"
               if report.missing else "")
            + (f"  files missing:    {report.files_missing} (backup files the store records, "
               "not restored)\n" if report.files_missing else ""))
