"""SIGKILL a PostgreSQL migration while it writes multi-MB backup records; resume, restore.

Each round kills the CLI once its backup file has grown past a byte offset drawn
at random over the whole backup it would write, so kills land before, between and
inside records (a record is written and fsynced before its row changes). Then
``--resume`` finishes the run and ``--restore`` must give back every row byte for
byte. ``HANDOFF_CODEC_KILL_ROUNDS`` sets the rounds (default 3; the acceptance
run used 20); the counts are printed (``-s`` shows them).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from tests.support.migrate_support import (
    PLAIN,
    cli_command,
    cli_env,
    envelope,
    require_legacy_reader,
)
from tests.support.server_stores import SqlStore, run_migrate
from tests.support.services import postgres_database

ROUNDS = int(os.environ.get("HANDOFF_CODEC_KILL_ROUNDS", "3"))
BIG_ROWS = 6


def _rows() -> list[tuple[str, str]]:
    """Six legacy summaries of about 2 MB each (a bare role makes them legacy), between
    plain rows."""
    rows: list[tuple[str, str]] = []
    for n in range(BIG_ROWS):
        words = " ".join(f"w{n}-{i}" for i in range(260_000))
        summary = {"role": "assistant",
                   "content": envelope(f"1. user: {words}", "2. assistant", "3. user: ok")}
        rows.append((f"s{n % 3}", json.dumps(PLAIN[n % len(PLAIN)])))
        rows.append((f"s{n % 3}", json.dumps(summary, separators=(",", ":"))))
    return rows


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def test_killed_while_writing_large_backup_records_then_resumed_and_restored(
        tmp_path: Path) -> None:
    require_legacy_reader()
    rng = random.Random(20261201)
    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(_rows())
        original = store.rows()
        # A whole backup's size, to draw kill points over.
        probe = tmp_path / "probe.jsonl"
        run_migrate(url, "--batch-size", "1", "--backup-file", str(probe), check_code=0)
        total = _size(probe)
        run_migrate(url, "--restore", str(probe), check_code=0)
        assert store.rows() == original
        torn = killed = identical = 0
        for round_ in range(ROUNDS):
            backup = tmp_path / f"round-{round_}.jsonl"
            target = rng.randrange(300, total)
            proc = subprocess.Popen(cli_command(url, "--batch-size", "1", "--backup-file",
                                                str(backup)),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=cli_env())
            deadline = time.monotonic() + 120
            while _size(backup) < target and proc.poll() is None:
                assert time.monotonic() < deadline, "the run wrote nothing"
                time.sleep(0.0005)
            proc.send_signal(signal.SIGKILL)
            killed += proc.wait() == -signal.SIGKILL
            data = backup.read_bytes()
            torn += bool(data) and not data.endswith(b"\n")
            rows = store.rows()
            assert all(value == original[key] or key in rows for key, value in rows.items())
            final = run_migrate(url, "--resume", "--batch-size", "1", "--backup-file",
                                str(backup), check_code=0)
            assert final["untouched"] == 0
            restored = run_migrate(url, "--restore", str(backup), check_code=0)
            assert restored["changed_since"] == 0 and restored["missing"] == 0
            assert store.rows() == original
            identical += 1
        print(f"\nkill rounds: {ROUNDS}, killed mid-run: {killed}, a record cut short at the "
              f"kill: {torn}, restored byte-identical: {identical}")
        assert killed == identical == ROUNDS
