"""``handoff-codec migrate URL``: the server stores (PostgreSQL, MySQL/MariaDB, Redis, SQLite).

``migrate`` hands over here when its STORE argument is a URL (``postgresql://``,
``mysql://``, ``mariadb://``, ``sqlite:///``, ``redis://``). Exit codes as for files:
0 when every summary is current (or would be), 1 when a row was left untouched,
changed under us, or could not be restored, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._options import at_least, listed

__all__ = ["add_options", "handles", "run"]


def handles(path: str) -> bool:
    """Whether ``migrate``'s STORE argument names a server store."""
    from ..migrate.stores._online import is_store_url

    return is_store_url(path)


def _shard(text: str) -> Any:
    from ..migrate.stores._protocol import Shard

    index, slash, count = text.partition("/")
    try:
        shard = Shard(int(index), int(count))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not K/N: {text!r}") from None
    if not slash or shard.count < 1 or not 0 <= shard.index < shard.count:
        raise argparse.ArgumentTypeError(f"not K/N with 0 <= K < N: {text!r}")
    return shard


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options only server stores (URLs) use."""
    group = parser.add_argument_group(
        "server stores (STORE is a URL: postgresql://, mysql://, sqlite:///, redis://)")
    group.add_argument("--pause", type=at_least(float, 0), default=0.0, metavar="SECONDS",
                       help="sleep between batches, to leave the server to the application "
                            "(default: 0)")
    group.add_argument("--shard", type=_shard, default=None, metavar="K/N",
                       help="migrate only the sessions of shard K of N (by session id)")
    group.add_argument("--workers", type=at_least(int, 1), default=1, metavar="N",
                       help="run N shards in N local processes and merge their reports")
    group.add_argument("--resume", action="store_true",
                       help="continue each shard from its checkpoint")
    group.add_argument("--backup-file", metavar="PATH",
                       help="JSONL backup of every changed row (default: "
                            "handoff-codec-backup-<UTC time>.jsonl; one file per shard)")
    group.add_argument("--restore", action="append", metavar="BACKUP",
                       help="put back the rows of a backup file (repeatable)")
    group.add_argument("--key-prefix", default="agents:session", metavar="P",
                       help="RedisSession key prefix (default: agents:session)")
    group.add_argument("--lock-ttl", type=at_least(float, 1), default=60.0, metavar="SECONDS",
                       help="expiry of a Redis shard lock, renewed every batch (default: 60)")
    group.add_argument("--encryption-key-env", metavar="VAR",
                       help="the rows are EncryptedSession envelopes; the key is in the "
                            "environment variable VAR")


def run(args: argparse.Namespace, codec: Any) -> int:
    from ..migrate.stores import StoreError, StoreRefusal
    from ..migrate.stores._online import OnlineOptions, restore
    from ..migrate.stores._online import run as run_online
    from ..migrate.stores._protocol import Shard

    options = OnlineOptions(
        url=args.path, dry_run=args.dry_run, batch_size=args.batch_size, pause=args.pause,
        shard=args.shard or Shard(), workers=args.workers, resume=args.resume,
        backup=args.backup_file, write_backup=args.backup,
        messages_table=args.messages_table, sessions_table=args.sessions_table,
        key_prefix=args.key_prefix, lock_ttl=args.lock_ttl,
        encryption_key_env=args.encryption_key_env, codec=codec,
        restore_empty=args.restore_empty)
    try:
        if args.restore:
            result: Any = restore(args.restore, options)
        else:
            result = run_online(options)
    except StoreRefusal as exc:  # e.g. another run holds the store with another layout
        print(f"handoff-codec: error: {exc}", file=sys.stderr)
        return 1
    except StoreError as exc:
        print(f"handoff-codec: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a driver error (connection lost, lock timeout)
        print(f"handoff-codec: error: {args.path}: {type(exc).__name__}: "
              f"{str(exc).splitlines()[0] if str(exc) else ''}; rows already written are "
              "in the backup file, and --resume continues", file=sys.stderr)
        return 1
    if args.json:
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), ensure_ascii=False,
                                    indent=2) + "\n")
    else:
        sys.stdout.write(_summary(result))
    return 0 if result.ok and not getattr(result, "changed_under_us", 0) else 1


def _summary(report: Any) -> str:
    from ._restored import placeholder_lines

    if hasattr(report, "restored"):
        return (f"{report.path} (restore)\n  rows in backup:   {report.rows}\n"
                f"  restored:         {report.restored}\n"
                f"  changed since:    {report.changed_since} (left as they are)\n")
    dry = report.dry_run
    lines = [f"{report.path} ({report.store}, shards {', '.join(report.shards)}"
             + (", dry run: nothing written)" if dry else ")")]
    fields = [("rows scanned", report.rows_scanned), ("summaries found", report.summaries_found),
              ("would migrate" if dry else "migrated", report.migrated),
              ("already current", report.already_current), ("left untouched", report.untouched),
              ("changed under us", report.changed_under_us)]
    lines += [f"  {label + ':':<17} {value}" for label, value in fields]
    lines += listed(report.untouched_rows, lambda row: f"{row.key}: {row.reason}")
    lines += placeholder_lines(report, None)
    lines += [f"  {'backup:':<17} {path}" for path in report.backups]
    return "\n".join(lines) + "\n"
