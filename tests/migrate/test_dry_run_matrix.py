"""A dry run writes nothing: every action and flag of ``migrate`` with ``--dry-run``, on every
kind of store, leaves every row, the migration's own state and every file as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.migrate_support import require_legacy_reader, run_cli_here
from tests.support.store_matrix import made_store, more_legacy, store_kinds

# Each with --dry-run. BACKUP stands for the backup file of the store's first run, NEW for
# a path no file has.
VARIANTS: tuple[tuple[str, ...], ...] = (
    (),
    ("--json",),
    ("--resume",),
    ("--resume", "--backup-file", "NEW"),
    ("--restore", "BACKUP"),
    ("--restore", "BACKUP", "--json"),
    ("--forget",),
    ("--forget", "--json"),
    ("--restore-empty",),
    ("--legacy-only", "--list"),
    ("--accept-ambiguous",),
    ("--no-backup",),
    ("--backup-file", "NEW"),
    ("--workers", "2"),
    ("--shard", "1/2"),
    ("--shard-from-env", "--shards", "2"),
    ("--batch-size", "1", "--pause", "0"),
    ("--progress",),
)


@pytest.mark.parametrize("kind", store_kinds())
def test_no_dry_run_writes_anything(kind: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    require_legacy_reader()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "work" / "state"))
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    with made_store(kind, tmp_path / "work") as store:
        # A first real run: a backup file, a checkpoint, a local record. Then more legacy
        # rows, so that a dry run finds work to do.
        first = ["--backup-file", str(tmp_path / "work" / "first.jsonl")] if store.server else []
        ran = run_cli_here(store.target, *store.options, *first, "--json")
        assert ran.returncode in (0, 1), ran.stderr
        report = json.loads(ran.stdout)
        [backup] = report["backups"]
        store.fill(more_legacy())
        monkeypatch.chdir(tmp_path / "work")
        before = store.fingerprint()
        runs = 0
        for variant in VARIANTS:
            argv = [str(tmp_path / "work" / "new.jsonl") if word == "NEW" else
                    backup if word == "BACKUP" else word for word in variant]
            result = run_cli_here(store.target, *store.options, "--dry-run", *argv)
            assert "unexpected" not in result.stderr, (variant, result.stderr)
            assert result.returncode in (0, 1, 2), (variant, result.stderr)
            assert store.fingerprint() == before, (kind, variant, result.stdout,
                                                   result.stderr)
            runs += 1
            if store.server and variant[:1] in (("--restore",), ("--forget",)) and \
                    "--json" in variant:
                said = json.loads(result.stdout)
                assert said["dry_run"] is True and result.returncode == 0, result.stderr
                assert said["counts"].get("restored", 1) > 0  # what it would do
                assert said["counts"].get("checkpoints", 1) > 0
        assert runs == len(VARIANTS)
