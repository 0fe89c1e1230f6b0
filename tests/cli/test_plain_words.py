"""What the CLI prints says who wrote a summary in words a user knows: no bare format labels
(``legacy: 2``), and no ``shards 0/1`` for a run that covers the whole store."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABELS = ("legacy:", "legacy-0.6-0.17.0:", "legacy-0.17.1-0.19:", "current:")


def migrate(*argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "handoff_codec", "migrate", *argv],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return Path(shutil.copy(ROOT / "examples" / "sessions.db", tmp_path / "sessions.db"))


@pytest.mark.parametrize("url", [False, True])
def test_the_dry_run_names_the_writers(store: Path, url: bool) -> None:
    out = migrate("--dry-run", f"sqlite:///{store}" if url else str(store))
    (line,) = [line for line in out.splitlines() if "would migrate:" in line]
    assert "(written by an older writer the text does not pin down: " in line
    assert "; written by openai-agents 0.17.1 to 0.19: " in line
    assert "; written by openai-agents 0.6 to 0.17.0: " in line
    assert not any(label in line for label in LABELS)


def test_a_server_store_names_a_shard_only_when_the_run_is_one_of_several(store: Path) -> None:
    whole = migrate("--dry-run", f"sqlite:///{store}").splitlines()[0]
    assert whole == f"sqlite:///{store} (sqlalchemy-sqlite, dry run: nothing written)"
    part = migrate("--dry-run", f"sqlite:///{store}", "--shard", "1/2").splitlines()[0]
    assert part == f"sqlite:///{store} (sqlalchemy-sqlite, shards 1/2, dry run: nothing written)"
