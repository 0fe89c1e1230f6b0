"""Sharded, parallel and locked runs on the real PostgreSQL and Redis servers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.migrate_support import cli_command, cli_env, require_legacy_reader
from tests.support.server_stores import (
    RedisStore,
    SqlStore,
    bulk_rows,
    counts,
    run_migrate,
)
from tests.support.services import postgres_database, redis_prefix

ROWS = 3000


def _sharded(url: str, backups: Path, *options: str) -> dict[str, int]:
    """Four ``--shard K/4`` processes at once; their summed counts."""
    procs = [subprocess.Popen(cli_command(url, "--shard", f"{k}/4", "--json", "--backup-file",
                                          str(backups / f"b{k}.jsonl"), *options),
                              stdout=subprocess.PIPE, text=True, env=cli_env())
             for k in range(4)]
    import json

    total: dict[str, int] = {}
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        for key, value in counts(json.loads(out)).items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return total


def _ints(report: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in counts(report).items() if isinstance(v, int)}  # type: ignore[arg-type]


def test_postgres_one_worker_four_workers_and_four_shards_agree(tmp_path: Path) -> None:
    require_legacy_reader()
    rows = bulk_rows(ROWS)
    finals, totals = [], []
    for how in ("one", "workers", "shards"):
        with postgres_database() as url:
            store = SqlStore(url)
            store.bulk(rows)
            folder = tmp_path / how
            folder.mkdir()
            if how == "shards":
                totals.append(_sharded(url, folder))
            else:
                extra = ("--workers", "4") if how == "workers" else ()
                report = run_migrate(url, "--backup-file", str(folder / "b.jsonl"), *extra,
                                     process=bool(extra))  # workers: spawned by the CLI
                totals.append(_ints(report))
                if how == "workers":
                    assert sorted(report["shards"]) == ["0/4", "1/4", "2/4", "3/4"]
            finals.append(store.rows())
    assert finals[0] == finals[1] == finals[2]
    assert totals[0] == totals[1] == totals[2]
    assert totals[0]["migrated"] > 0


def test_redis_one_worker_four_workers_and_four_shards_agree(tmp_path: Path) -> None:
    require_legacy_reader()
    rows = bulk_rows(ROWS)
    finals, totals = [], []
    for how in ("one", "workers", "shards"):
        with redis_prefix() as (url, prefix):
            store = RedisStore(url, prefix)
            store.bulk(rows)
            folder = tmp_path / how
            folder.mkdir()
            options = ("--key-prefix", prefix)
            if how == "shards":
                totals.append(_sharded(url, folder, *options))
            else:
                extra = ("--workers", "4") if how == "workers" else ()
                report = run_migrate(url, "--backup-file", str(folder / "b.jsonl"), *options,
                                     *extra, process=bool(extra))
                totals.append(_ints(report))
            finals.append({(key[0].replace(prefix.encode(), b"P"), key[1]): value
                           for key, value in store.rows().items()})
    assert finals[0] == finals[1] == finals[2]
    assert totals[0] == totals[1] == totals[2]
    assert totals[0]["migrated"] > 0


def test_a_second_run_on_a_locked_shard_is_refused(tmp_path: Path) -> None:
    from handoff_codec.migrate.stores import Shard, open_store

    with postgres_database() as url:
        store = SqlStore(url)
        store.bulk(bulk_rows(20))
        before = store.rows()
        holder = open_store(url).connect()
        try:
            with holder.lock(Shard(1, 2)):
                result = subprocess.run(cli_command(url, "--shard", "1/2", "--backup-file",
                                                    str(tmp_path / "b.jsonl")),
                                        capture_output=True, text=True, env=cli_env())
                assert result.returncode == 2, result.stderr
                assert "being migrated by another run" in result.stderr
                assert store.rows() == before
                other = run_migrate(url, "--shard", "0/2", "--backup-file",
                                    str(tmp_path / "c.jsonl"))  # another shard goes on
                assert other["rows_scanned"] > 0
        finally:
            holder.close()
        after = run_migrate(url, "--shard", "1/2", "--backup-file", str(tmp_path / "d.jsonl"))
        assert after["rows_scanned"] > 0
