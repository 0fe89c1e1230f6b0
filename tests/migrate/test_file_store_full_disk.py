"""A file store's run that fills its disk leaves nothing behind: its store unchanged, its
partial backup and temporary file deleted (so the same command runs again, never
refused for a backup file it left), and a stop line saying nothing was committed."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    make_session_db,
    require_legacy_reader,
    run_cli_here,
)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real filesystem of 256 KiB (tmpfs)."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
                              str(where)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _items(size: int) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    while len(json.dumps(items)) < size:
        items += [PLAIN[0], *CRAFTED[:4]]
    return items


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
@pytest.mark.parametrize("full", ["store-disk", "backup-disk"])
def test_a_full_disk_leaves_no_backup_and_says_nothing_was_committed(
        tmp_path: Path, small_disk: Path, kind: str, full: str) -> None:
    require_legacy_reader()
    home = small_disk if full == "store-disk" else tmp_path
    store = home / ("s.jsonl" if kind == "jsonl" else "s.db")
    items = _items(100_000 if full == "store-disk" else 400_000)
    if kind == "jsonl":
        store.write_text("".join(json.dumps(item) + "\n" for item in items))
    else:
        make_session_db(store, {"s-0": items})
    before = store.read_bytes()
    backup = small_disk / "b.jsonl"
    args = [str(store)] + (["--backup-file", str(backup)] if full == "backup-disk" else [])
    for _ in range(2):  # the same command again is never refused for what the first left
        result = run_cli_here(*args)
        assert result.returncode == 1, (result.returncode, result.stderr)
        assert "No space left on device" in result.stderr
        assert "nothing was committed" in result.stderr or "nothing was written" in \
            result.stderr, result.stderr
        assert store.read_bytes() == before
        left = sorted(p.name for p in store.parent.iterdir() if p != store and
                      not p.name.startswith(store.name + "-"))
        assert left == [] or (full == "backup-disk" and left == ["disk"]), left
        assert not backup.exists()
