"""Migration speed and memory on a SQLiteSession database.

    python -m benchmarks.migrate                       # 100,000 and 400,000 rows
    python -m benchmarks.migrate --rows 100000         # one size
    python -m benchmarks.migrate --compare 50000 200000 800000

For each size, a fresh subprocess builds a session database in a temporary
folder (about 20% of rows legacy summaries of 5 to 50 turns, written the way
openai-agents 0.6 to 0.19 wrote them; the rest ordinary items; rows are drawn
from pools of 5,000 distinct summaries and 5,000 distinct items), and another
fresh subprocess migrates it with the real code path
(``handoff_codec.migrate.stores.sqlite.migrate_sqlite``, as ``handoff-codec migrate``
runs it, backup included). That process reports rows per second and its peak
RSS from ``resource.getrusage``. Peak memory should not grow with the size of
the database: the migration holds one batch of rows at a time.

Rows whose bytes cannot hold a summary are not decoded; nearly all of the time
goes to reading, re-encoding and re-checking the summaries (profile with
``python -m cProfile -s cumtime -m benchmarks.migrate --run DB`` on a built DB).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PREAMBLE = "For context, here is the conversation so far between the user and the previous agent:"
WORDS = ("the", "agent", "asked", "for", "invoice", "number", "and", "user", "replied", "with",
         "order", "details", "so", "billing", "can", "check", "refund", "policy", "before",
         "handoff")
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


# ----------------------------------------------------------------------------- data


def legacy_summary(rng: random.Random, turns: int) -> dict[str, Any]:
    """A summary as openai-agents 0.6-0.17.0 or 0.17.1-0.19 wrote it."""
    json_records = rng.random() < 0.5  # 0.17.1-0.19 wrote JSON records

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    records = []
    for number in range(1, turns + 1):
        role = rng.choice(("user", "assistant"))
        kind = rng.random()
        if kind < 0.1:  # an empty turn: a bare role in every legacy writer
            records.append(f"{number}. {role}")
        elif kind < 0.25:  # multi-line content
            content = "\n".join(text(3, 10) for _ in range(rng.randint(2, 4)))
            if json_records:
                records.append(f"{number}. " + json.dumps({"role": role, "content": content},
                                                          ensure_ascii=False))
            else:
                records.append(f"{number}. {role}: {content}")
        elif kind < 0.35:  # a tool call
            call = {"call_id": f"call_{number}", "name": "lookup_order",
                    "arguments": json.dumps({"query": text(2, 5)})}
            if json_records:
                records.append(f"{number}. " + json.dumps({"type": "function_call", **call}))
            else:
                records.append(f"{number}. function_call: {json.dumps(call)}")
        else:
            records.append(f"{number}. {role}: {text(8, 30)}")
    content = "\n".join((PREAMBLE, "<CONVERSATION HISTORY>", *records,
                         "</CONVERSATION HISTORY>"))
    return {"role": "assistant", "content": content}


def ordinary_item(rng: random.Random, number: int) -> dict[str, Any]:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
    kind = rng.random()
    if kind < 0.4:
        return {"role": "user", "content": text}
    if kind < 0.7:
        return {"id": f"msg_{number}", "type": "message", "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    if kind < 0.85:
        return {"type": "function_call", "call_id": f"call_{number}", "name": "lookup_order",
                "arguments": json.dumps({"query": text[:40]})}
    return {"type": "function_call_output", "call_id": f"call_{number}", "output": text}


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


def run(path: Path, batch_size: int) -> dict[str, Any]:
    """Migrate ``path`` in this process; report speed and peak RSS."""
    import handoff_codec
    from handoff_codec.migrate.stores import MigrateOptions, open_store

    # Build the parsers first, so the baseline includes everything but the migration.
    handoff_codec.decode(legacy_summary(random.Random(1), 5)["content"])
    baseline = _rss_mib()
    started = time.perf_counter()
    report = open_store(path, MigrateOptions(batch_size=batch_size, backup=True)).migrate()
    seconds = time.perf_counter() - started
    return {
        "rows": report.rows_scanned, "summaries": report.summaries_found,
        "migrated": report.migrated, "untouched": report.untouched,
        "seconds": seconds, "rows_per_second": report.rows_scanned / seconds,
        "summaries_per_second": report.summaries_found / seconds,
        "baseline_rss_mib": baseline, "peak_rss_mib": _rss_mib(),
        "db_mib": path.stat().st_size / 2**20,
    }


def _child(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "benchmarks.migrate", *args],
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
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
    args = parser.parse_args(argv)
    if args.build:
        print(json.dumps(build(args.build, args.rows or 100_000)))
        return 0
    if args.run:
        print(json.dumps(run(args.run, args.batch_size)))
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


if __name__ == "__main__":
    sys.exit(main())
