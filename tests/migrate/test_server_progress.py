"""``--progress`` on server stores: rows done, their rate and the time left, on stderr, for a
run and a dry run; nothing by default when stderr is not a terminal, nor with
``--no-progress``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.migrate_support import require_legacy_reader, run_cli_here
from tests.support.server_stores import RedisStore, SqlStore, bulk_rows
from tests.support.services import postgres_database, redis_prefix

ROWS = 240


@contextmanager
def _store(kind: str, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    rows = bulk_rows(ROWS, legacy_every=4)
    if kind == "redis":
        with redis_prefix() as (url, prefix):
            RedisStore(url, prefix).bulk(rows)
            yield url, ["--key-prefix", prefix]
        return
    if kind == "postgresql":
        with postgres_database() as url:
            SqlStore(url).bulk(rows)
            yield url, []
        return
    url = f"sqlite:///{tmp_path / 's.db'}"
    SqlStore(url).bulk(rows)
    yield url, []


@pytest.mark.parametrize("kind", ["sqlite-url", "postgresql", "redis"])
def test_progress_shows_rows_rate_and_time_left(kind: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    require_legacy_reader()
    monkeypatch.chdir(tmp_path)
    with _store(kind, tmp_path) as (url, options):
        common = [url, *options, "--batch-size", "20"]
        for quiet in ([], ["--no-progress"]):  # stderr is no terminal here
            assert run_cli_here(*common, "--dry-run", *quiet, check_code=0).stderr == ""
        dry = run_cli_here(*common, "--progress", "--dry-run", check_code=0).stderr
        assert f"/{ROWS} [" in dry and "rows/s" in dry, dry
        # A real run, slowed so that the bar is drawn after each batch: rows done of the
        # total, the time spent < the time left, the rate.
        err = run_cli_here(*common, "--progress", "--pause", "0.15", "--backup-file",
                           str(tmp_path / "b.jsonl"), check_code=0).stderr
        # (the last batch drawn may be short of the total when the bar is closed)
        assert re.search(rf"\b[0-9]+/{ROWS} \[[0-9:]+<[0-9:]+, +[0-9.]+ ?rows/s\]", err), err
        assert re.search(rf"\b[1-9][0-9]*/{ROWS} \[[0-9:]+<00:0[0-9], ", err), err
