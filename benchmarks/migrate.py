"""Migration speed and memory on a SQLiteSession database.

    python -m benchmarks.migrate                       # 100,000 and 400,000 rows
    python -m benchmarks.migrate --rows 100000         # one size
    python -m benchmarks.migrate --compare 50000 200000 800000
    python -m benchmarks.migrate --floor [--rows 100000] [--rounds 3] [--sqlite-workers 2]

For each size, a fresh subprocess builds a session database in a temporary
folder (about 20% of rows legacy summaries of 5 to 50 turns, written the way
openai-agents 0.6 to 0.19 wrote them; the rest ordinary items; rows are drawn
from pools of 5,000 distinct summaries and 5,000 distinct items), and another
fresh subprocess migrates it with the real code path
(``handoff_codec.migrate.stores.sqlite_file.migrate_sqlite``, as ``handoff-codec migrate``
runs it, backup included). That process reports rows per second and its peak
RSS from ``resource.getrusage``. Peak memory should not grow with the size of
the database: the migration holds one batch of rows at a time.

``--floor`` compares the migration with a floor migrator on copies of one
database: the same transaction, batches, backup and UPDATEs of the same rows,
with only ``json.loads``/``json.dumps`` (it rewrites each summary row as it
reads it: no summary is decoded or re-encoded). Fresh processes, ours and
the floor in turns; printed: the median of the per-round ratios ours/floor.
The goal is at most 2. ``--sqlite-workers N`` also times ours with N processes
reading the summaries (``MigrateOptions(workers=N)``, one of them writing),
against the same one-process floor, and prints that ratio on its own line.
For SQLite it also times the json bound: the floor plus, for each summary,
its items read, written and read again by the json module, the three passes
a migration that keeps its re-read makes (decode, dumps, the strict re-read),
at the json module's C speed. No such migration in one process is faster.

Rows whose bytes cannot hold a summary are not decoded; nearly all of the time
goes to reading, re-encoding and re-checking the summaries (profile with
``python -m cProfile -s cumtime -m benchmarks.migrate --run DB`` on a built DB).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .session_rows import PREAMBLE, legacy_summary, ordinary_item

SCHEMA = """
CREATE TABLE agent_sessions (
    session_id TEXT PRIMARY KEY,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE agent_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    message_data TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE
);
CREATE INDEX idx_agent_messages_session_id ON agent_messages (session_id, id);
"""  # agents.memory.sqlite_session.SQLiteSession's schema (openai-agents 0.24)


def _rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def build(path: Path, rows: int, seed: int = 0) -> dict[str, Any]:
    """Write a session DB of ``rows`` messages, 20% legacy summaries, in batches."""
    started = time.perf_counter()
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute("PRAGMA journal_mode=WAL")  # as SQLiteSession leaves its databases
    sessions = max(1, rows // 100)
    conn.executemany("INSERT INTO agent_sessions (session_id) VALUES (?)",
                     [(f"session-{n}",) for n in range(sessions)])
    # Rows are drawn from pools of distinct rows, so that building stays fast.
    pool = min(rows, 5000)
    legacy_rows = [json.dumps(legacy_summary(rng, rng.randint(5, 50))) for _ in range(pool)]
    ordinary_rows = [json.dumps(ordinary_item(rng, n)) for n in range(pool)]
    summaries = 0
    batch = []
    for _ in range(rows):
        if rng.random() < 0.2:
            data = rng.choice(legacy_rows)
            summaries += 1
        else:
            data = rng.choice(ordinary_rows)
        batch.append((f"session-{rng.randrange(sessions)}", data))
        if len(batch) == 5000:
            conn.executemany(
                "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)", batch)
            batch.clear()
    conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
                     batch)
    conn.commit()
    conn.close()
    return {"rows": rows, "summaries": summaries, "bytes": path.stat().st_size,
            "seconds": time.perf_counter() - started}


# ----------------------------------------------------------------------------- run


def run(path: Path, batch_size: int, workers: int = 1) -> dict[str, Any]:
    """Migrate ``path`` in this process (and ``workers - 1`` others); report speed and
    peak RSS."""
    import handoff_codec
    from handoff_codec.migrate.stores import MigrateOptions, open_store

    # Build the parsers first, so the baseline includes everything but the migration.
    handoff_codec.decode(legacy_summary(random.Random(1), 5)["content"])
    baseline = _rss_mib()
    started = time.perf_counter()
    report = open_store(path, MigrateOptions(batch_size=batch_size, backup=True,
                                             workers=workers)).migrate()
    seconds = time.perf_counter() - started
    return {
        "rows": report.rows_scanned, "summaries": report.summaries_found,
        "migrated": report.migrated, "untouched": report.untouched,
        "seconds": seconds, "rows_per_second": report.rows_scanned / seconds,
        "summaries_per_second": report.summaries_found / seconds,
        "baseline_rss_mib": baseline, "peak_rss_mib": _rss_mib(),
        "db_mib": path.stat().st_size / 2**20,
    }


# ----------------------------------------------------------------------------- floor


def floor_migrate(path: Path, batch_size: int,
                  items_of: dict[str, str] | None = None) -> dict[str, int]:
    """The floor migrator: ``migrate_sqlite``'s SQLite work with only json.loads/json.dumps.

    One ``BEGIN IMMEDIATE`` transaction; rows read in batches by rowid, as
    bytes; a row is parsed when its bytes hold the start marker (the same
    cheap test as ours; other non-ASCII rows are checked to be UTF-8); a
    summary message is written back as ``json.dumps`` of what was read, after
    a backup through the sqlite3 backup API before the first UPDATE.

    With ``items_of`` (each summary's items as JSON text), the json bound: each
    summary's items are also read, written and read again by the json module
    and compared (:func:`_json_passes`), the three passes a migration that
    keeps the re-read makes, at the json module's speed.
    """
    marker = b"<CONVERSATION HISTORY>"
    preambles = (PREAMBLE + "\n", "For context, here is the conversation so far:\n")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.text_factory = bytes
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("SELECT count(*) FROM agent_sessions").fetchone()
    conn.execute("SELECT count(*) FROM agent_messages").fetchone()
    select = ("SELECT rowid, message_data, typeof(message_data) FROM agent_messages "
              "WHERE rowid > ? ORDER BY rowid LIMIT ?")
    update = "UPDATE agent_messages SET message_data = ? WHERE rowid = ?"
    backed_up = False
    last, scanned, written = 0, 0, 0
    while rows := conn.execute(select, (last, batch_size)).fetchall():
        changes = []
        for key, data, _kind in rows:
            scanned += 1
            if marker not in data:
                if not data.isascii():
                    data.decode("utf-8")
                continue
            item = json.loads(data.decode("utf-8"))
            content = item.get("content") if isinstance(item, dict) else None
            if item.get("role") == "assistant" and isinstance(content, str) and (
                    content.startswith(preambles)):
                if items_of is not None:
                    _json_passes(items_of[content])
                changes.append((json.dumps(item, ensure_ascii=False), key))
        if changes:
            if not backed_up:
                backup = sqlite3.connect(path.with_name(path.name + ".floor-backup"))
                source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                source.backup(backup)
                source.close()
                backup.close()
                backed_up = True
            conn.executemany(update, changes)
            written += len(changes)
        last = rows[-1][0]
    conn.execute("COMMIT")
    conn.close()
    return {"rows": scanned, "written": written}


def _json_passes(items_json: str) -> None:
    """A summary's three passes at the json module's speed: read its items, write
    them, read that back and compare (what decode, dumps and the re-read do)."""
    items = json.loads(items_json)
    if json.loads(json.dumps(items, ensure_ascii=False)) != items:
        raise AssertionError("the json module does not read back what it wrote")


def floor_run(path: Path, batch_size: int, bound: bool = False) -> dict[str, Any]:
    """Time the floor migrator in this process (with ``bound``, the json bound: each
    summary's items are worked out first, untimed, with handoff_codec)."""
    items_of = _items_of(path) if bound else None
    started = time.perf_counter()
    counts = floor_migrate(path, batch_size, items_of)
    return {**counts, "seconds": time.perf_counter() - started}


def _items_of(path: Path) -> dict[str, str]:
    """Each summary content in the database, and its items as JSON text."""
    import handoff_codec

    conn = sqlite3.connect(path)
    contents = {json.loads(data)["content"] for (data,) in conn.execute(
        "SELECT DISTINCT message_data FROM agent_messages WHERE instr(message_data, ?) > 0",
        ("<CONVERSATION HISTORY>",))}
    conn.close()
    return {content: json.dumps(handoff_codec.loads(content)) for content in contents}


def floor_compare(rows: int, batch_size: int, rounds: int, workers: int = 1,
                  bound: bool = False) -> dict[str, Any]:
    """Ours (with ``workers`` processes) and the floor (with ``bound``, the json bound
    too) on fresh copies of one database, in turns: seconds and ratios."""
    ours: list[float] = []
    floor: list[float] = []
    ratios: list[float] = []
    bounds: list[float] = []
    over_bound: list[float] = []
    flags = {"ours": "--run", "floor": "--floor-run", "bound": "--bound-run"}
    with tempfile.TemporaryDirectory(prefix="migrate-floor-") as folder:
        built = Path(folder) / "built.db"
        info = _child("--build", str(built), "--rows", str(rows))
        print(f"  built {rows:,} rows ({info['summaries']:,} legacy summaries, "
              f"{info['bytes'] / 2**20:.0f} MiB) in {info['seconds']:.1f} s", flush=True)
        for round_ in range(rounds):
            times = {}
            order = ["ours", "floor", *(("bound",) if bound else ())]
            for which in order[round_ % len(order):] + order[:round_ % len(order)]:
                copy = Path(folder) / f"{which}-{round_}.db"
                shutil.copyfile(built, copy)
                result = _child(flags[which], str(copy), "--batch-size", str(batch_size),
                                *(("--workers", str(workers)) if which == "ours" else ()))
                times[which] = result["seconds"]
                for leftover in Path(folder).glob(f"{which}-{round_}.db*"):
                    leftover.unlink()
            _record(round_, times, ours, floor, ratios)
            if bound:
                bounds.append(times["bound"] / times["floor"])
                over_bound.append(times["ours"] / times["bound"])
                print(f"           json bound {times['bound']:.2f} s, ratio {bounds[-1]:.2f}; "
                      f"ours/json bound {over_bound[-1]:.2f}", flush=True)
    result = _medians(rows, ours, floor, ratios)
    if bound:
        result["bound_ratio"] = statistics.median(bounds)
        result["over_bound"] = statistics.median(over_bound)
    return result


def _record(round_: int, times: dict[str, float], ours: list[float], floor: list[float],
            ratios: list[float]) -> None:
    """Keep and print one round's pair of times."""
    ours.append(times["ours"])
    floor.append(times["floor"])
    ratios.append(times["ours"] / times["floor"])
    print(f"  round {round_ + 1}: ours {times['ours']:.2f} s, floor "
          f"{times['floor']:.2f} s, ratio {ratios[-1]:.2f}", flush=True)


def _medians(rows: int, ours: list[float], floor: list[float],
             ratios: list[float]) -> dict[str, Any]:
    return {"rows": rows, "ours_s": statistics.median(ours),
            "floor_s": statistics.median(floor), "ratio": statistics.median(ratios)}


def floor_rule_server(row: Any) -> Any:
    """The floor's per-row rule for a server store: json.loads/json.dumps of summary rows."""
    from handoff_codec.migrate import RowOutcome, RowStatus

    data = row.value
    if b"<CONVERSATION HISTORY>" not in data:
        data.decode("utf-8")  # as ours: every row is checked to be UTF-8
        return RowOutcome(RowStatus.UNCHANGED)
    item = json.loads(data.decode("utf-8"))
    content = item.get("content") if isinstance(item, dict) else None
    if item.get("role") == "assistant" and isinstance(content, str) and content.startswith(
            (PREAMBLE + "\n", "For context, here is the conversation so far:\n")):
        new = json.dumps(item, ensure_ascii=False).encode("utf-8")
        return RowOutcome(RowStatus.MIGRATED, new=new)
    return RowOutcome(RowStatus.UNCHANGED)


def floor_server_run(url: str, batch_size: int) -> dict[str, Any]:
    """The floor on a server store, through the online migration's own batches, backup
    file, compare-and-swap UPDATEs and checkpoints, with :func:`floor_rule_server`."""
    from handoff_codec.migrate.stores import MigrateOptions, open_store

    with tempfile.TemporaryDirectory(prefix="migrate-floor-backup-") as folder:
        options = MigrateOptions(batch_size=batch_size,
                                 backup_file=str(Path(folder) / "backup.jsonl"))
        started = time.perf_counter()
        report = open_store(url, options).migrate(rule=floor_rule_server)
        seconds = time.perf_counter() - started
    return {"rows": report.rows_scanned, "seconds": seconds}


def floor_server_compare(url: str, rows: int, batch_size: int, rounds: int) -> dict[str, Any]:
    """Ours (``handoff-codec migrate URL``) and the floor, each on a fresh store, in turns."""
    from .migrate_servers import fresh_store

    ours, floor, ratios = [], [], []
    for round_ in range(rounds):
        times = {}
        for which in (("ours", "floor") if round_ % 2 == 0 else ("floor", "ours")):
            with fresh_store(url, rows) as (store, extra):
                if which == "ours":
                    result = _child("--store", url, "--run", store, "1", "--batch-size",
                                    str(batch_size), "--extra", json.dumps(extra))
                else:
                    result = _child("--floor-store-run", store, "--batch-size", str(batch_size))
            times[which] = result["seconds"]
        _record(round_, times, ours, floor, ratios)
    return _medians(rows, ours, floor, ratios)


def _child(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.migrate", *args],
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.splitlines()[-1])
    return result


def measure(rows: int, batch_size: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="migrate-bench-") as folder:
        path = Path(folder) / "sessions.db"
        built = _child("--build", str(path), "--rows", str(rows))
        print(f"  built {rows:,} rows ({built['summaries']:,} legacy summaries, "
              f"{built['bytes'] / 2**20:.0f} MiB) in {built['seconds']:.1f} s", flush=True)
        return _child("--run", str(path), "--batch-size", str(batch_size))


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if "--floor" in arguments or "--floor-store-run" in arguments:
        return floor_main(arguments)
    if any(arg == "--store" or arg.startswith("--store=") for arg in arguments):
        from .migrate_servers import main as main_servers  # server stores: --store URL

        return main_servers(arguments)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.migrate",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, help="measure one size only")
    parser.add_argument("--compare", type=int, nargs="+", metavar="ROWS",
                        default=[100_000, 400_000],
                        help="sizes to compare (default: 100000 400000)")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor", action="store_true",
                        help="compare with a floor migrator (json.loads/json.dumps only)")
    parser.add_argument("--floor-run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--bound-run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_run or args.bound_run:
        print(json.dumps(floor_run(args.floor_run or args.bound_run, args.batch_size,
                                   bound=args.bound_run is not None)))
        return 0
    if args.build:
        print(json.dumps(build(args.build, args.rows or 100_000)))
        return 0
    if args.run:
        print(json.dumps(run(args.run, args.batch_size, args.workers)))
        return 0

    sizes = [args.rows] if args.rows else args.compare
    results = []
    for rows in sizes:
        print(f"{rows:,} rows:", flush=True)
        result = measure(rows, args.batch_size)
        results.append(result)
        print(f"  migrated {result['migrated']:,} of {result['summaries']:,} summaries "
              f"({result['untouched']} untouched) in {result['seconds']:.1f} s: "
              f"{result['rows_per_second']:,.0f} rows/s, "
              f"{result['summaries_per_second']:,.0f} summaries/s", flush=True)
        print(f"  peak RSS {result['peak_rss_mib']:.1f} MiB "
              f"(after imports {result['baseline_rss_mib']:.1f} MiB); "
              f"database {result['db_mib']:.0f} MiB", flush=True)
    if len(results) > 1:
        first, last = results[0], results[-1]
        growth = last["peak_rss_mib"] - first["peak_rss_mib"]
        print(f"peak RSS: {first['peak_rss_mib']:.1f} MiB at {first['rows']:,} rows, "
              f"{last['peak_rss_mib']:.1f} MiB at {last['rows']:,} rows "
              f"({growth:+.1f} MiB for {last['rows'] / first['rows']:.0f}x the rows)")
    return 0


def floor_main(argv: list[str]) -> int:
    """``--floor [--store URL ...]``: print ours/floor for SQLite, and for each server store."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.migrate --floor")
    parser.add_argument("--floor", action="store_true")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", action="append", default=[], metavar="URL",
                        help="also a server store (postgresql://...), as --store in "
                             "benchmarks.migrate_servers; repeatable")
    parser.add_argument("--sqlite-workers", type=int, default=1, metavar="N",
                        help="also ours on the SQLite file with N processes reading the "
                             "summaries (one writing), reported separately")
    parser.add_argument("--floor-store-run", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_store_run:
        print(json.dumps(floor_server_run(args.floor_store_run, args.batch_size)))
        return 0
    print(f"SQLite file, {args.rows:,} rows: ours (migrate_sqlite, backup) against the floor "
          "migrator", flush=True)
    results = {"sqlite": floor_compare(args.rows, args.batch_size, args.rounds, bound=True)}
    if args.sqlite_workers > 1:
        print(f"SQLite file, {args.rows:,} rows: ours with {args.sqlite_workers} processes "
              "(one writing) against the floor migrator (one process)", flush=True)
        results[f"sqlite, {args.sqlite_workers} processes"] = floor_compare(
            args.rows, args.batch_size, args.rounds, args.sqlite_workers)
    for url in args.store:
        name = url.partition("://")[0]
        print(f"{name}, {args.rows:,} rows, 1 worker: ours (handoff-codec migrate URL, backup "
              "file) against the floor through the same store code", flush=True)
        results[name] = floor_server_compare(url, args.rows, args.batch_size, args.rounds)
    for name, result in results.items():
        print(f"{name}: ours {result['ours_s']:.2f} s, floor {result['floor_s']:.2f} s "
              f"(medians); ours/floor {result['ratio']:.2f} (median of {args.rounds} rounds; "
              f"goal for a server store at most 1.5)")
        if "bound_ratio" in result:
            print(f"{name}: json bound/floor {result['bound_ratio']:.2f} (the floor plus each "
                  "summary's items read, written and read again by the json module: a "
                  "migration that keeps the re-read costs at least this)")
            print(f"{name}: ours/json bound {result['over_bound']:.2f} (median of "
                  f"{args.rounds} rounds; goal at most 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
