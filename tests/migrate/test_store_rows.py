"""Row-level guarantees of the server stores: compare-and-swap, keys, bad rows, other bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.format import DEFAULT_START
from handoff_codec.migrate import RowRule
from handoff_codec.migrate.stores import Change, MigrateOptions, Shard, StoreError, open_store
from tests.support.migrate_support import CRAFTED, PLAIN, require_legacy_reader, run_cli
from tests.support.server_stores import RedisStore, SqlStore, run_migrate
from tests.support.services import mysql_database, postgres_database, redis_prefix

LEGACY = CRAFTED[0]


@contextmanager
def _store(kind: str, tmp_path: Path) -> Iterator[tuple[Any, str, tuple[str, ...]]]:
    if kind == "postgresql":
        with postgres_database() as url:
            yield SqlStore(url), url, ()
    elif kind == "mysql":
        with mysql_database() as url:
            yield SqlStore(url), url, ()
    elif kind == "redis":
        with redis_prefix() as (url, prefix):
            yield RedisStore(url, prefix), url, ("--key-prefix", prefix)
    else:
        url = f"sqlite:///{tmp_path / 's.db'}"
        yield SqlStore(url), url, ()


@pytest.mark.parametrize("kind", ["postgresql", "mysql", "redis", "sqlite"])
def test_a_row_changed_between_read_and_swap_is_skipped_not_overwritten(
        kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    with _store(kind, tmp_path) as (test_store, url, options):
        test_store.fill({"s": [LEGACY, LEGACY, PLAIN[0]]})
        prefix = options[1] if options else "agents:session"
        store = open_store(url, MigrateOptions(key_prefix=prefix)).connect()
        try:
            # Every batch: on a Redis server holding other tests' keys, SCAN may take
            # several pages (and so batches) to reach this prefix's one list.
            first, second, plain = [row for batch in store.batches(None, 10, Shard())
                                    for row in batch.rows]
            new = RowRule()(first.value).new
            assert new is not None and RowRule()(plain.value).new is None
            # An application rewrites the first row after we read it.
            replaced = json.dumps({"role": "user", "content": "changed"}).encode()
            store.commit([Change(first, replaced)], None)
            written = store.commit([Change(first, new), Change(second, new)], None)
            assert written == [False, True]
            rows = test_store.rows()
            assert sorted(rows.values()) == sorted([replaced, new, plain.value])
        finally:
            store.close()


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_a_table_without_a_single_integer_primary_key_is_refused(
        kind: str, tmp_path: Path) -> None:
    with _store(kind, tmp_path) as (test_store, url, _):
        test_store.execute("CREATE TABLE agent_messages (id INTEGER, session_id TEXT, "
                           "message_data TEXT)")
        test_store.execute("INSERT INTO agent_messages VALUES (1, 's', :a), (1, 's', :b)",
                           {"a": json.dumps(PLAIN[0]), "b": json.dumps(LEGACY)})
        result = run_cli(url, "--backup-file", str(tmp_path / "b.jsonl"), check_code=2)
        assert "no single integer primary key" in result.stderr
        assert not (tmp_path / "b.jsonl").exists()
        with pytest.raises(StoreError):
            open_store(url).connect()


def test_bad_rows_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    store.fill({"s": [LEGACY]})
    # Rows that may hold a summary (their bytes hold the start marker) but cannot
    # be read, and one that cannot hold a summary, which need not be JSON at all.
    marker = json.dumps(DEFAULT_START)
    store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES "
                  "('s', :huge), ('s', CAST(x'7b22ff227d' AS TEXT)), ('s', :broken), "
                  "('s', '{not json, and no summary')",
                  {"huge": '{"n": ' + "9" * 5000 + ', "content": ' + marker + "}",
                   "broken": "{not json " + marker})
    store.fill({"s": [LEGACY]})
    report = run_migrate(url, "--backup-file", str(tmp_path / "b.jsonl"), check_code=1)
    assert report["migrated"] == 2 and report["invalid_rows"] == 3
    assert report["rows_scanned"] == 6 and report["rows_decoded"] == 2
    reasons = " ".join(row["reason"] for row in report["untouched_rows"])
    assert "not UTF-8" in reasons and "Exceeds the limit" in reasons
    assert [row["key"] for row in report["untouched_rows"]] == [[2], [3], [4]]


def test_a_migrated_row_keeps_every_other_byte(tmp_path: Path) -> None:
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    store.fill({"s": [PLAIN[0]]})
    content = json.dumps(LEGACY["content"])
    odd = ('{"role": "assistant", "n": 1e400, "z": -0, "e": 2E3, "t": 1e-400, '
           f'"role": "assistant", "content": {content}, "x": "\\u00e9"}}')
    store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', :v)",
                  {"v": odd})
    run_migrate(url, "--backup-file", str(tmp_path / "b.jsonl"))
    (after,) = [v for k, v in store.rows().items() if k == (2,)]
    migrated = RowRule()(odd.encode()).new
    assert after == migrated
    expected_content = json.dumps(json.loads(migrated)["content"])  # type: ignore[arg-type]
    assert after.decode() == odd.replace(content, expected_content)
    assert after.decode() != odd
