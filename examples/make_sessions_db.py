"""Build ``examples/sessions.db``: a small Agents SDK session database with old summaries.

    python examples/make_sessions_db.py [--out examples/sessions.db]

The database has ``SQLiteSession``'s schema (it is created by
``agents.SQLiteSession`` itself) and the sessions listed in
``examples/sessions.json``, whose items include summary messages written by the
real ``openai-agents`` 0.6.0, 0.14.8, 0.17.1 and 0.19.4 (taken from
``tests/fixtures/legacy_summaries.jsonl``), one written by 0.24.0, and ordinary
items around them. Rows are inserted the way
``SQLiteSession.add_items`` writes them (``json.dumps(item)``), with fixed
timestamps so that the file is the same on every run.

Then try the migration, which only reports and writes nothing:

    handoff-codec migrate --dry-run examples/sessions.db
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "legacy_summaries.jsonl"

# Each session: its id, the summary it holds (writer version, fixture case) and
# the items that followed the handoff.
SESSIONS_FILE = HERE / "sessions.json"


def summaries() -> dict[tuple[str, str], dict[str, Any]]:
    if not FIXTURES.exists():
        sys.exit(f"{FIXTURES} is missing: run tests/fixtures/generate_legacy.py first")
    found = {}
    for line in FIXTURES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["kind"] == "single":
            found[(row["version"], row["case"])] = row["summary"]
    return found


def build(out: Path) -> None:
    from agents import SQLiteSession

    by_key = summaries()
    fd, name = tempfile.mkstemp(prefix=".sessions-", suffix=".db", dir=out.parent)
    os.close(fd)
    temp = Path(name)
    temp.unlink()
    try:
        SQLiteSession("schema", temp).close()  # the SDK creates its own schema
        conn = sqlite3.connect(temp)
        minute = 0
        sessions = json.loads(SESSIONS_FILE.read_text(encoding="utf-8"))["sessions"]
        for session in sessions:
            session_id, version = session["session_id"], session["written_by"]
            case, after = session["fixture_case"], session["after"]
            stamp = f"2025-06-0{1 + minute // 60} 10:{minute % 60:02d}:00"
            conn.execute("INSERT INTO agent_sessions VALUES (?, ?, ?)",
                         (session_id, stamp, stamp))
            items = [{"role": "user", "content": "I need help with my order."},
                     by_key[(version, case)], *after]
            for item in items:
                stamp = f"2025-06-0{1 + minute // 60} 10:{minute % 60:02d}:00"
                conn.execute("INSERT INTO agent_messages (session_id, message_data, created_at)"
                             " VALUES (?, ?, ?)", (session_id, json.dumps(item), stamp))
                minute += 1
        conn.commit()
        conn.execute("VACUUM")
        conn.close()
        os.replace(temp, out)
    finally:
        for leftover in (temp, temp.with_name(temp.name + "-wal"),
                         temp.with_name(temp.name + "-shm")):
            leftover.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=HERE / "sessions.db")
    args = parser.parse_args()
    build(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
