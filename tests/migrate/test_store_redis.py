"""Migrating ``RedisSession`` keys on the real local Redis server."""

from __future__ import annotations

from pathlib import Path

from tests.support.migrate_support import require_legacy_reader
from tests.support.server_stores import RedisStore, check_migration_cycle
from tests.support.services import redis_prefix


def test_dry_run_real_run_second_run_and_restore(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        report = check_migration_cycle(RedisStore(url, prefix), url,
                                       str(tmp_path / "backup.jsonl"), "--key-prefix", prefix)
        assert report["store"] == "redis"
