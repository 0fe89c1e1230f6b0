"""``--workers N``: killing only the parent ends its workers, and ``--resume`` then works."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.support.migrate_support import cli_command, cli_env, require_legacy_reader
from tests.support.server_stores import SqlStore, bulk_rows, counts, run_migrate
from tests.support.services import postgres_database

HEADER = 200  # more than a backup file's header line


def _children(parent: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``parent``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == parent and state != "Z":
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def test_killing_the_parent_ends_its_workers_and_resume_completes(tmp_path: Path) -> None:
    require_legacy_reader()
    if not Path("/proc/self/stat").exists():
        import pytest

        pytest.skip("needs /proc to find the worker processes")
    rows = bulk_rows(4000, legacy_every=4)
    with postgres_database() as clean_url:
        clean_store = SqlStore(clean_url)
        clean_store.bulk(rows)
        clean = run_migrate(clean_url, "--backup-file", str(tmp_path / "clean.jsonl"))
        new = clean_store.rows()
    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(rows)
        backup = tmp_path / "w.jsonl"
        shards = [tmp_path / f"w.shard-{k}-of-2.jsonl" for k in range(2)]
        parent = subprocess.Popen(cli_command(url, "--workers", "2", "--batch-size", "25",
                                              "--pause", "0.2", "--backup-file", str(backup)),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=cli_env())
        deadline = time.monotonic() + 90
        while not all(_size(path) > HEADER for path in shards):  # both workers write
            assert parent.poll() is None and time.monotonic() < deadline, "no batch was run"
            time.sleep(0.05)
        workers = [pid for pid in _children(parent.pid)
                   if b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(workers) >= 2, workers
        parent.send_signal(signal.SIGKILL)
        assert parent.wait() == -signal.SIGKILL
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, "the workers outlived their parent"
            time.sleep(0.05)
        sizes = [_size(path) for path in shards]
        time.sleep(0.5)
        assert [_size(path) for path in shards] == sizes  # nothing writes any more
        assert store.rows() != new  # the run was cut short
        final = run_migrate(url, "--workers", "2", "--batch-size", "25", "--backup-file",
                            str(backup), "--resume", process=True)
        assert store.rows() == new
        assert counts(final) == counts(clean)
