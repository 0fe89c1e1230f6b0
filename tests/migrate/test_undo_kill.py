"""A file store's ``--restore`` killed part-way beside an agent that keeps writing, then run
again: every row the agent wrote is kept and every migrated row is back byte for byte;
and what killed runs leave behind is removed by the next run, which names it.

``HANDOFF_CODEC_KILL_ROUNDS`` sets the rounds (2 by default).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from handoff_codec.migrate.stores import BackupWriter
from tests.support.every_store import every_store
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    cli_command,
    cli_env,
    require_legacy_reader,
    run_cli_here,
)
from tests.support.server_stores import run_migrate

ROUNDS = int(os.environ.get("HANDOFF_CODEC_KILL_ROUNDS", "2"))

# An agent: appends one item at a time (a SQLite row, or a JSONL line) until told to stop.
_AGENT = """
import json, os, sqlite3, sys, time
kind, path, stop = sys.argv[1:4]
n = 0
while not os.path.exists(stop):
    text = json.dumps({"role": "user", "content": "agent-%d" % n})
    if kind == "jsonl":
        with open(path, "a") as file:
            file.write(text + "\\n")
    else:
        conn = sqlite3.connect(path, timeout=30)
        with conn:
            conn.execute("INSERT INTO agent_messages (session_id, message_data) "
                         "VALUES ('agent', ?)", (text,))
        conn.close()
    n += 1
    time.sleep(0.002)
print(n)
"""


@pytest.mark.parametrize("kind", ["sqlite-file", "jsonl"])
def test_a_restore_killed_beside_a_writing_agent_is_finished_by_the_next(
        kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    rng = random.Random(37)
    for round_ in range(ROUNDS):
        place = tmp_path / f"round-{round_}"
        place.mkdir()
        with every_store(kind, place) as store:
            store.fill({f"s-{n}": [PLAIN[n % len(PLAIN)], CRAFTED[n % 4], PLAIN[0]] * 40
                        for n in range(10)})
            before = store.rows()
            backup = place / "backup.jsonl"
            run_migrate(store.target, "--backup-file", str(backup), check_code=0)
            assert store.rows() != before
            stop = place / "stop"
            agent = subprocess.Popen([sys.executable, "-c", _AGENT,
                                      "jsonl" if kind == "jsonl" else "sqlite",
                                      store.target, str(stop)], stdout=subprocess.PIPE,
                                     text=True)
            time.sleep(0.2)
            restore = subprocess.Popen(cli_command(store.target, "--restore", str(backup),
                                                   "--batch-size", "7"),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env=cli_env())
            time.sleep(rng.uniform(0.5, 2.0))
            restore.send_signal(signal.SIGKILL)
            restore.wait()
            again = run_migrate(store.target, "--restore", str(backup), check_code=0)
            assert again["changed_since"] == 0
            time.sleep(0.1)
            stop.touch()
            written = int(agent.communicate(timeout=60)[0])
            after = store.rows()
            for key, value in before.items():  # every migrated row back, byte for byte
                assert after[key] == value, key
            agent_rows = sorted(json.loads(value)["content"] for key, value in after.items()
                                if key not in before)
            assert agent_rows == sorted(f"agent-{n}" for n in range(written)), written
            assert written > 0


@pytest.mark.parametrize("kind", ["sqlite-file", "jsonl"])
def test_what_a_killed_run_left_is_removed_by_the_next_and_named(
        kind: str, tmp_path: Path) -> None:
    """A backup with no closing record (its run was killed before the store changed) and,
    for JSONL, the temporary file of a killed run; a completed backup stays."""
    require_legacy_reader()
    with every_store(kind, tmp_path) as store:
        store.fill({"s": [PLAIN[0], CRAFTED[0]]})
        assert store.path is not None
        kept = tmp_path / "kept.jsonl"
        run_migrate(store.target, "--backup-file", str(kept))
        store.append({"t": [CRAFTED[1]]})
        identity = json.loads(kept.read_bytes().split(b"\n")[0])["identity"]
        killed = store.path.with_name(store.path.name + ".bak-20261201T000000Z.jsonl")
        writer = BackupWriter(killed, {"store": str(store.path), "kind": "x", "shard": "0/1",
                                       "identity": identity}, append=False)
        writer.write([([1], "s", b'{"a": 1}', b'{"a": 2}')])
        writer.close()
        left = [killed]
        if kind == "jsonl":
            temp = store.path.with_name(f".{store.path.name}.abcd1234.migrating")
            temp.write_bytes(b"half a file")
            left.append(temp)
        result = run_cli_here(store.target, "--json", check_code=0)
        warnings = json.loads(result.stdout)["warnings"]
        for path in left:
            assert not path.exists()
            assert any(str(path) in warning for warning in warnings), warnings
        assert kept.exists()


_CRASHING_APP = """
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('app', ?)",
             ('{"role": "user", "content": "in the wal"}',))
os.kill(os.getpid(), signal.SIGKILL)  # crashed: its -wal file stays, not checkpointed
"""


def test_a_crashed_applications_wal_is_kept_by_the_restore(tmp_path: Path) -> None:
    """The -wal file an application left when it crashed holds committed rows: the restore
    works on the database SQLite opens (the -wal included), so they are kept, and no
    copy of the file is ever put over it."""
    require_legacy_reader()
    with every_store("sqlite-file", tmp_path) as store:
        store.fill({"s": [PLAIN[0], CRAFTED[0], CRAFTED[1]]})
        assert store.path is not None
        before = store.rows()
        backup = tmp_path / "backup.jsonl"
        run_migrate(store.target, "--backup-file", str(backup), check_code=0)
        crashed = subprocess.run([sys.executable, "-c", _CRASHING_APP, store.target])
        assert crashed.returncode == -signal.SIGKILL
        wal = store.path.with_name(store.path.name + "-wal")
        assert wal.exists() and wal.stat().st_size > 0
        restored = run_migrate(store.target, "--restore", str(backup), check_code=0)
        assert restored["restored"] == 2
        after = store.rows()
        assert {key: after[key] for key in before} == before
        assert [value for key, value in after.items() if key not in before] == [
            b'{"role": "user", "content": "in the wal"}']
