"""The registry of store backends: a class registered for a URL scheme is what
``open_store`` and ``handoff-codec migrate`` open for that scheme."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from handoff_codec.migrate.stores import (
    BackupRestoreReport,
    ForgetReport,
    MigrateOptions,
    StoreReport,
    StoreResult,
    open_store,
    registered_schemes,
)
from tests.support.migrate_support import cli_env, make_session_db

# Run in a process of its own: the registry is the process's, and other tests list it.
_BACKEND = textwrap.dedent("""
    import sys

    from handoff_codec.cli import main
    from handoff_codec.migrate.stores import (
        MigrateOptions, Store, StoreReport, open_store, register_store, registered_schemes)


    @register_store
    class MemoryStore(Store):
        schemes = ("memory",)
        kind = "memory"

        def __init__(self, target, options, client=None):
            self.where, self.options = target, options

        def migrate(self):
            return StoreReport(path=self.where, store=self.kind,
                               dry_run=self.options.dry_run, rows_scanned=3)

        def restore(self, backups):
            raise NotImplementedError


    assert "memory" in registered_schemes()
    store = open_store("memory://here", MigrateOptions(dry_run=True))
    assert type(store).__name__ == "MemoryStore" and store.options.dry_run
    sys.exit(main(["migrate", "memory://here", "--dry-run", "--json"]))
""")


def test_a_registered_backend_is_what_open_store_and_the_cli_open(tmp_path: Path) -> None:
    script = tmp_path / "backend.py"
    script.write_text(_BACKEND)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=cli_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["path"], report["store"], report["rows_scanned"]) == ("memory://here",
                                                                         "memory", 3)


def test_without_its_backend_a_scheme_is_a_usage_error(tmp_path: Path) -> None:
    assert "memory" not in registered_schemes()
    result = subprocess.run([sys.executable, "-m", "handoff_codec.cli", "migrate",
                             "memory://here", "--dry-run"], capture_output=True, text=True,
                            env=cli_env(), timeout=60)
    assert result.returncode == 2
    assert "unsupported store URL scheme 'memory'" in result.stderr


def test_every_action_returns_a_store_result(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_session_db(db, {"s": []})
    url = f"sqlite:///{db}"
    store = open_store(url, MigrateOptions(dry_run=True))
    results = {"migrate": store.migrate(), "forget": store.forget(),
               "restore": store.restore([])}
    for action, result in results.items():
        assert isinstance(result, StoreResult) and result.action == action and result.ok
    assert isinstance(results["migrate"], StoreReport)
    assert isinstance(results["forget"], ForgetReport)
    assert isinstance(results["restore"], BackupRestoreReport)
    file_result = open_store(db, MigrateOptions(dry_run=True)).migrate()
    assert file_result.action == "migrate" and file_result.changed_under_run == 0
