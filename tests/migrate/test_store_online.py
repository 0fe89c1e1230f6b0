"""Online: the migration runs while an application appends and reads through the SDK.

Each test migrates 100,000 rows (2% legacy summaries) while another process
appends and reads through the real SDK session for the whole run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from handoff_codec.format import DEFAULT_START
from handoff_codec.migrate import MigrationResult, migrate_item
from tests.support.migrate_support import ROOT, cli_env, require_legacy_reader
from tests.support.server_stores import RedisStore, SqlStore, bulk_rows, run_migrate
from tests.support.services import postgres_database, redis_prefix

ROWS = 100_000


def _online(store: SqlStore | RedisStore, url: str, writer_url: str, writer_kind: str,
            writer_prefix: str, tmp_path: Path, *options: str) -> None:
    # The writer starts first (its imports take seconds) and writes once told to go.
    writer = subprocess.Popen([sys.executable, "-m", "tests.support.session_writer",
                               writer_kind, writer_url, writer_prefix, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True, env=cli_env(), cwd=ROOT)
    try:
        store.bulk(bulk_rows(ROWS, legacy_every=50))
        before = store.rows()
        (tmp_path / "go").touch()
        deadline = time.monotonic() + 120
        while not (tmp_path / "running").exists():  # the writer is writing
            assert writer.poll() is None and time.monotonic() < deadline, "the writer did not start"
            time.sleep(0.02)
        report = run_migrate(url, "--backup-file", str(tmp_path / "b.jsonl"), "--batch-size",
                             "500", *options, process=True)
        assert writer.poll() is None, "the writer stopped during the migration"
    finally:
        (tmp_path / "stop").touch()
        out, _ = writer.communicate(timeout=120)
    written: dict[str, Any] = json.loads(out)
    assert written["errors"] == []
    assert len(written["appended"]) > 10 and written["reads"] == len(written["appended"])

    after = store.rows()
    appended = [json.loads(value)["content"] for key, value in after.items()
                if key not in before]
    assert sorted(appended) == sorted(written["appended"])  # each exactly once
    # bulk_rows writes the start marker as plain ASCII, so a row without it holds
    # no summary and must be as it was. The rule runs once per distinct row.
    marker = DEFAULT_START.encode()
    rule: dict[bytes, MigrationResult] = {}
    migrated = kept = 0
    for key, old in before.items():
        if marker not in old:
            assert after[key] == old
            continue
        if old not in rule:
            rule[old] = migrate_item(json.loads(old))
        result = rule[old]
        if after[key] == old:
            kept += result.changed
        else:
            assert result.changed and json.loads(after[key]) == result.item
            migrated += 1
    assert migrated == report["migrated"] and kept == report["changed_under_us"]
    assert report["rows_scanned"] >= ROWS


def test_postgres_online(tmp_path: Path) -> None:
    require_legacy_reader()
    with postgres_database() as url:
        store = SqlStore(url)
        _online(store, url, store.async_url.render_as_string(hide_password=False), "sql",
                "", tmp_path)


def test_redis_online(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        _online(RedisStore(url, prefix), url, url, "redis", prefix, tmp_path,
                "--key-prefix", prefix)


def test_sqlalchemy_sqlite_online(tmp_path: Path) -> None:
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    store = SqlStore(url)
    _online(store, url, store.async_url.render_as_string(hide_password=False), "sql", "",
            tmp_path)
