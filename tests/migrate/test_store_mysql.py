"""Migrating ``SQLAlchemySession`` tables on the real local MariaDB/MySQL server."""

from __future__ import annotations

from pathlib import Path

from tests.support.migrate_support import require_legacy_reader
from tests.support.server_stores import SqlStore, check_migration_cycle
from tests.support.services import mysql_database


def test_dry_run_real_run_second_run_and_restore(tmp_path: Path) -> None:
    require_legacy_reader()
    with mysql_database() as url:
        report = check_migration_cycle(SqlStore(url), url, str(tmp_path / "backup.jsonl"))
        assert report["store"] == "sqlalchemy-mysql"
