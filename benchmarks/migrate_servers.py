"""Online migration speed and memory on server stores (PostgreSQL, MySQL/MariaDB, Redis, SQLite).

    python -m benchmarks.migrate --store postgresql://postgres@127.0.0.1/test \\
        --rows 1000000 --workers 1,2,4
    python -m benchmarks.migrate --store redis://127.0.0.1:6379/0 --rows 100000
    python -m benchmarks.migrate --store sqlite:///tmp/bench.db --rows 100000
    python -m benchmarks.migrate --store postgresql://postgres@127.0.0.1/test \
        --rows 400000 --restore

For each worker count, a fresh store is built beside the one named (a new
database on the same server, a new Redis key prefix, a new SQLite file) with
the rows of ``benchmarks.migrate`` (``--legacy-share``, default 20%, legacy
summaries; 100 rows per session), then a fresh process migrates it as ``handoff-codec migrate URL
--workers N`` does, backup file included, and reports rows per second, and the
peak RSS of the largest worker process. With ``--restore``, another fresh process
then restores the run's backup file (``--restore FILE``) and reports its time and
peak RSS beside the migration's: a restore streams the file, so its peak should
not grow with the backup. The store is dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .session_rows import legacy_summary, ordinary_item

ROWS_PER_SESSION = 100


def _rows(rows: int, share: float, seed: int = 0) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    pool = min(rows, 5000)
    legacy = [json.dumps(legacy_summary(rng, rng.randint(5, 50)), separators=(",", ":"))
              for _ in range(pool)]
    ordinary = [json.dumps(ordinary_item(rng, n), separators=(",", ":")) for n in range(pool)]
    sessions = max(1, rows // ROWS_PER_SESSION)
    for _ in range(rows):
        data = rng.choice(legacy) if rng.random() < share else rng.choice(ordinary)
        yield f"session-{rng.randrange(sessions)}", data


def _sql_build(url: str, rows: int, share: float) -> None:
    import sqlalchemy as sa

    from handoff_codec.migrate.stores import engine_url

    engine = sa.create_engine(engine_url(url))
    sessions = max(1, rows // ROWS_PER_SESSION)
    key = "VARCHAR(255)" if engine.dialect.name == "mysql" else "TEXT"
    serial = {"postgresql": "SERIAL PRIMARY KEY", "mysql": "INTEGER PRIMARY KEY AUTO_INCREMENT"
              }.get(engine.dialect.name, "INTEGER PRIMARY KEY AUTOINCREMENT")
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE TABLE agent_sessions (session_id {key} PRIMARY KEY, "
                                 "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
                                 "updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
            conn.exec_driver_sql(f"CREATE TABLE agent_messages (id {serial}, session_id {key} "
                                 "NOT NULL, message_data TEXT NOT NULL, "
                                 "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
            conn.exec_driver_sql("CREATE INDEX idx_agent_messages_session_time "
                                 "ON agent_messages (session_id, created_at)")
            conn.execute(sa.text("INSERT INTO agent_sessions (session_id) VALUES (:s)"),
                         [{"s": f"session-{n}"} for n in range(sessions)])
            if engine.dialect.name == "postgresql":
                cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
                with cursor.copy("COPY agent_messages (session_id, message_data) FROM STDIN"
                                 ) as copy:
                    for row in _rows(rows, share):
                        copy.write_row(row)
                return
            batch: list[dict[str, str]] = []
            insert = sa.text("INSERT INTO agent_messages (session_id, message_data) "
                             "VALUES (:s, :m)")
            for sid, data in _rows(rows, share):
                batch.append({"s": sid, "m": data})
                if len(batch) == 5000:
                    conn.execute(insert, batch)
                    batch.clear()
            if batch:
                conn.execute(insert, batch)
    finally:
        engine.dispose()


def _redis_build(url: str, prefix: str, rows: int, share: float) -> None:
    import redis

    client = redis.Redis.from_url(url)
    pipe = client.pipeline(transaction=False)
    for n, (sid, data) in enumerate(_rows(rows, share)):
        pipe.rpush(f"{prefix}:{sid}:messages", data)
        if n % 10_000 == 9_999:
            pipe.execute()
    pipe.execute()
    client.close()


@contextmanager
def fresh_store(url: str, rows: int, share: float = 0.2
                 ) -> Iterator[tuple[str, list[str]]]:
    """A new store of ``rows`` rows beside ``url``: (its URL, extra migrate arguments)."""
    scheme = url.partition("://")[0].split("+", 1)[0]
    name = "handoff_bench_" + uuid.uuid4().hex[:10]
    if scheme.startswith("redis"):
        import redis

        _redis_build(url, name, rows, share)
        try:
            yield url, ["--key-prefix", name]
        finally:
            client = redis.Redis.from_url(url)
            for pattern in (f"{name}:*", f"handoff-codec:migrate:{name}:*"):
                keys = list(client.scan_iter(match=pattern, count=5000))
                for start in range(0, len(keys), 5000):
                    client.delete(*keys[start:start + 5000])
            client.close()
        return
    if scheme == "sqlite":
        with tempfile.TemporaryDirectory(prefix="migrate-bench-") as folder:
            store = f"sqlite:///{Path(folder) / 'sessions.db'}"
            _sql_build(store, rows, share)
            yield store, []
        return
    import sqlalchemy as sa

    from handoff_codec.migrate.stores import engine_url

    admin = sa.create_engine(engine_url(url), isolation_level="AUTOCOMMIT")
    quote = "`" if admin.dialect.name == "mysql" else '"'
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {quote}{name}{quote}")
    store = sa.make_url(url).set(database=name).render_as_string(hide_password=False)
    try:
        _sql_build(store, rows, share)
        yield store, []
    finally:
        force = " WITH (FORCE)" if admin.dialect.name == "postgresql" else ""
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {quote}{name}{quote}{force}")
        admin.dispose()


def _rss_mib(who: int) -> float:
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def restore_child(url: str, backup: str, batch_size: int, extra: list[str]) -> dict[str, Any]:
    """Restore ``backup`` in this process; speed and peak RSS."""
    from handoff_codec.cli import main

    with tempfile.TemporaryDirectory(prefix="migrate-bench-restore-") as folder:
        out = Path(folder) / "report.json"
        started = time.perf_counter()
        real_stdout = sys.stdout
        with out.open("w") as sink:
            sys.stdout = sink
            try:
                main(["migrate", url, "--restore", backup, "--batch-size", str(batch_size),
                      "--json", *extra])
            finally:
                sys.stdout = real_stdout
        seconds = time.perf_counter() - started
        report = json.loads(out.read_text())
    return {"restored": report["restored"], "changed_since": report["changed_since"],
            "seconds": seconds, "peak_rss_mib": _rss_mib(resource.RUSAGE_SELF),
            "backup_mib": Path(backup).stat().st_size / (1 << 20)}


def run_child(url: str, workers: int, batch_size: int, extra: list[str],
              keep: str | None = None) -> dict[str, Any]:
    """Migrate in this process (and its workers); speed and peak RSS. ``keep``: a folder
    to write the backup file into (kept), for a restore to measure."""
    from handoff_codec.cli import main

    with tempfile.TemporaryDirectory(prefix="migrate-bench-backup-") as scratch:
        folder = keep or scratch
        started = time.perf_counter()
        out = Path(folder) / "report.json"
        args = ["migrate", url, "--workers", str(workers), "--batch-size", str(batch_size),
                "--backup-file", str(Path(folder) / "backup.jsonl"), "--json", *extra]
        real_stdout = sys.stdout
        with out.open("w") as sink:
            sys.stdout = sink
            try:
                main(args)
            finally:
                sys.stdout = real_stdout
        seconds = time.perf_counter() - started
        report = json.loads(out.read_text())
    peak = _rss_mib(resource.RUSAGE_SELF if workers == 1 else resource.RUSAGE_CHILDREN)
    return {"rows": report["rows_scanned"], "migrated": report["migrated"],
            "summaries": report["summaries_found"], "untouched": report["untouched"],
            "seconds": seconds, "rows_per_second": report["rows_scanned"] / seconds,
            "peak_rss_mib": peak}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.migrate --store URL",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--store", required=True, metavar="URL",
                        help="a server (a database is created on it) or sqlite:///")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workers", default="1", metavar="N,N,...",
                        help="worker counts to measure (default: 1)")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--legacy-share", type=float, default=0.2, metavar="F",
                        help="the share of rows that are legacy summaries (default: 0.2; "
                             "0 measures the store machinery alone)")
    parser.add_argument("--restore", action="store_true",
                        help="then restore the run's backup in a new process, and print its "
                             "speed and peak RSS beside the migration's")
    parser.add_argument("--run", nargs=2, metavar=("URL", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--restore-run", nargs=2, metavar=("URL", "BACKUP"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--keep", help=argparse.SUPPRESS)
    parser.add_argument("--extra", default="[]", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        print(json.dumps(run_child(args.run[0], int(args.run[1]), args.batch_size,
                                   json.loads(args.extra), args.keep)))
        return 0
    if args.restore_run:
        print(json.dumps(restore_child(*args.restore_run, args.batch_size,
                                       json.loads(args.extra))))
        return 0
    for workers in [int(n) for n in args.workers.split(",")]:
        started = time.perf_counter()
        with fresh_store(args.store, args.rows, args.legacy_share) as (url, extra), \
                tempfile.TemporaryDirectory(prefix="migrate-bench-kept-") as kept:
            built = time.perf_counter() - started
            child = [sys.executable, "-m", "benchmarks.migrate", "--store", args.store,
                     "--batch-size", str(args.batch_size), "--extra", json.dumps(extra)]
            out = subprocess.run([*child, "--run", url, str(workers), "--keep", kept],
                                 check=True, capture_output=True, text=True).stdout
            restored = None
            if args.restore:
                restored = json.loads(subprocess.run(
                    [*child, "--restore-run", url, str(Path(kept) / "backup.jsonl")],
                    check=True, capture_output=True, text=True).stdout.splitlines()[-1])
        result = json.loads(out.splitlines()[-1])
        print(f"{args.store.partition('://')[0]} {args.rows:,} rows "
              f"({args.legacy_share:.0%} legacy), {workers} worker(s) "
              f"(built in {built:.0f} s): {result['rows_per_second']:,.0f} rows/s "
              f"({result['migrated']:,} of {result['summaries']:,} summaries migrated in "
              f"{result['seconds']:.1f} s); peak RSS per worker "
              f"{result['peak_rss_mib']:.1f} MiB", flush=True)
        if restored is not None:
            print(f"  restore of its {restored['backup_mib']:,.0f} MiB backup: "
                  f"{restored['restored']:,} rows in {restored['seconds']:.1f} s "
                  f"({restored['changed_since']} changed since); peak RSS "
                  f"{restored['peak_rss_mib']:.1f} MiB, "
                  f"{restored['peak_rss_mib'] / result['peak_rss_mib']:.2f}x the "
                  "migration's", flush=True)
    return 0
