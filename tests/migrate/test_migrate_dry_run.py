"""``migrate --dry-run`` on a live database, and what it tells the user to do next."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import handoff_codec
from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
from tests.support.migrate_support import (
    CRAFTED,
    NONCANONICAL_CURRENT,
    PLAIN,
    files_beside,
    make_session_db,
    require_legacy_reader,
    run_cli,
    sha256,
)

ROWS = 400


def _wal_db(path: Path) -> None:
    """A WAL database of ``ROWS`` rows: the first a legacy summary, the rest plain."""
    make_session_db(path, {"s": [CRAFTED[0]]})
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    with conn:
        conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
                         [(json.dumps({**PLAIN[0], "n": n, "pad": "x" * 300}),)
                          for n in range(ROWS - 1)])
    conn.close()


class _WriteDuringScan:
    """A progress bar that, after the first batch, has another connection rewrite the
    first and the last row and checkpoint, as a live application might."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = False

    def __call__(self, total: int, unit: str) -> _WriteDuringScan:
        return self

    def update(self, n: int = 1) -> None:
        if self.done:
            return
        self.done = True
        writer = sqlite3.connect(self.path, isolation_level=None)
        try:
            last = writer.execute("SELECT max(id) FROM agent_messages").fetchone()[0]
            writer.execute("UPDATE agent_messages SET message_data = ? WHERE id = ?",
                           (json.dumps(CRAFTED[1]), last))
            writer.execute("UPDATE agent_messages SET message_data = ? WHERE id = 1",
                           (json.dumps(PLAIN[1]),))
            writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            writer.close()

    def close(self) -> None:
        pass


def test_dry_run_reads_one_snapshot_while_another_process_writes(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "live.db"
    _wal_db(path)
    app = sqlite3.connect(path)  # the application has the file open, and no -wal yet
    try:
        assert not path.with_name(path.name + "-wal").exists()
        report = migrate_sqlite(path, dry_run=True, batch_size=20,
                                progress=_WriteDuringScan(path))
    finally:
        app.close()
    # The snapshot taken when the dry run began: one legacy summary, in row 1.
    assert (report.rows_scanned, report.summaries_found, report.migrated) == (ROWS, 1, 1)


def test_dry_run_after_a_killed_write_says_what_to_run(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "hot.db"
    make_session_db(path, {"s": [CRAFTED[0], *PLAIN * 100]})
    killed = (
        "import os, signal, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA journal_mode=DELETE')\n"
        "conn.execute('PRAGMA cache_size=2')\n"
        "conn.execute('BEGIN')\n"
        "conn.execute(\"UPDATE agent_messages SET message_data = message_data || ' '\")\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    subprocess.run([sys.executable, "-c", killed, str(path)], check=False)
    journal = path.with_name(path.name + "-journal")
    assert journal.exists()
    digest = sha256(path)
    result = run_cli(str(path), "--dry-run", check_code=1)
    assert "hot journal" in result.stderr and "PRAGMA quick_check" in result.stderr
    assert sha256(path) == digest and journal.exists()  # the dry run wrote nothing
    # What it says to run rolls the journal back; then the dry run works.
    sqlite3.connect(path).execute("PRAGMA quick_check").fetchall()
    assert not journal.exists()
    run_cli(str(path), "--dry-run", check_code=0)


# ------------------------------------------------------------------ what to do next


def _mixed_store(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.db"
    make_session_db(path, {"s": [PLAIN[0], CRAFTED[0], NONCANONICAL_CURRENT, PLAIN[1]]})
    return path


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def test_dry_run_ends_with_the_next_command_and_the_backup(tmp_path: Path) -> None:
    require_legacy_reader()
    path = _mixed_store(tmp_path)
    out = _lines(run_cli(str(path), "--dry-run", "--batch-size", "50", check_code=0).stdout)
    assert out[-2] == f"next: handoff-codec migrate {path} --batch-size 50"
    assert out[-1] == f"  backup: {path.name}.bak-<UTC time>.jsonl in {path.parent}"
    no_backup = _lines(run_cli(str(path), "--dry-run", "--no-backup", check_code=0).stdout)
    assert no_backup[-2:] == [f"next: handoff-codec migrate {path} --no-backup",
                              "  backup: none (--no-backup)"]
    assert files_beside(path) == ["mixed.db"]


def test_list_names_each_row_and_which_rewrites_only_sort_keys(tmp_path: Path) -> None:
    require_legacy_reader()
    path = _mixed_store(tmp_path)
    out = run_cli(str(path), "--dry-run", "--list", check_code=0).stdout
    assert any(f"    row id 2: {label}\n" in out
               for label in ("legacy-0.17.1-0.19", "legacy-0.6-0.17.0", "legacy"))
    assert "    row id 3: key order only\n" in out
    assert "1 of these rewrites only sort the JSON keys of 0.20+ summaries" in out
    report = json.loads(run_cli(str(path), "--dry-run", "--list", "--json").stdout)
    assert [(r["row"], r["key_order_only"]) for r in report["changed_rows"]] == [
        (2, False), (3, True)]


def test_legacy_only_leaves_key_order_rewrites_alone(tmp_path: Path) -> None:
    require_legacy_reader()
    path = _mixed_store(tmp_path)
    result = run_cli(str(path), "--legacy-only", "--no-backup", "--json", check_code=0)
    report: dict[str, Any] = json.loads(result.stdout)
    assert (report["migrated"], report["skipped_key_order"]) == (1, 1)
    conn = sqlite3.connect(path)
    rows = [json.loads(r[0]) for r in conn.execute(
        "SELECT message_data FROM agent_messages ORDER BY id")]
    conn.close()
    assert rows[2] == NONCANONICAL_CURRENT
    assert rows[1] == handoff_codec.migrate.migrate_item(CRAFTED[0]).item
    # Without --legacy-only the key-order rewrite is the only one left.
    again = json.loads(run_cli(str(path), "--dry-run", "--json", check_code=0).stdout)
    assert (again["would_migrate"], again["key_order_only"]) == (1, 1)
