"""A canonical row too long for the SDK's MySQL/MariaDB ``TEXT`` column: refused, never cut.

The SDK's schema stores ``message_data`` as ``TEXT`` (65,535 bytes). The
legacy summary below is about 65,300 bytes as a row and twice that canonical.
Under a strict ``sql_mode`` the batch holding it used to fail on every run, and
under ``sql_mode=''`` the row was cut to invalid JSON.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from handoff_codec.migrate import migrate_item
from tests.support.migrate_support import CRAFTED, PLAIN, envelope, require_legacy_reader
from tests.support.server_stores import SqlStore, run_migrate
from tests.support.services import mysql_database

TEXT_BYTES = 65_535


def _big_legacy_summary() -> dict[str, Any]:
    """A legacy summary whose row fits in TEXT and whose canonical row does not."""
    records: list[str] = []
    n = 0
    while True:
        n += 1
        records += [f'{n}. user: "q{n}"', f"line two {n}"]
        item = {"role": "assistant", "content": envelope(*records)}
        if len(json.dumps(item).encode()) > TEXT_BYTES - 400:
            return item


BIG = _big_legacy_summary()
SMALL = CRAFTED[0]


def _sessions() -> dict[str, list[dict[str, Any]]]:
    return {"big": [PLAIN[0], BIG, SMALL], "other": [CRAFTED[1], PLAIN[1]]}


def _expected(items: list[dict[str, Any]], *, big_migrated: bool) -> list[dict[str, Any]]:
    return [item if item is BIG and not big_migrated else migrate_item(item).item
            for item in items]


def _url(url: str, sql_mode: str | None) -> str:
    """``url``, its connections starting with ``sql_mode`` (this test's connections only)."""
    if sql_mode is None:
        return url
    return f"{url}?init_command={quote(f'SET SESSION sql_mode={sql_mode!r}')}"


@pytest.mark.parametrize("sql_mode", [None, ""], ids=["strict", "empty-sql-mode"])
def test_a_row_too_long_for_its_column_is_refused_and_the_batch_goes_on(
        sql_mode: str | None, tmp_path: Path) -> None:
    require_legacy_reader()
    assert len(json.dumps(BIG).encode()) <= TEXT_BYTES
    assert len(json.dumps(migrate_item(BIG).item).encode()) > TEXT_BYTES
    with mysql_database() as url:
        store = SqlStore(url)
        store.fill(_sessions())
        before = store.rows()
        big_key = next(key for key, value in before.items() if len(value) > 60_000)
        target = _url(url, sql_mode)

        dry = run_migrate(target, "--dry-run", check_code=1)
        assert dry["would_migrate"] == 2 and dry["untouched"] == 1
        assert store.rows() == before

        reports = []
        for attempt in ((), ("--resume",)):  # a resumed run is no different
            report = run_migrate(target, "--backup-file", str(tmp_path / "b.jsonl"), *attempt,
                                 check_code=1)
            assert report["untouched"] == 1
            [refused] = report["untouched_rows"]
            assert refused["key"] == list(big_key)
            assert f"column holds {TEXT_BYTES} (TEXT)" in refused["reason"]
            assert refused["reason"].startswith("canonical text is ")
            reports.append(report)
        assert reports[0]["migrated"] == 2  # the batch's other legacy rows
        # The resume of a finished run runs again and reports that run: they are current.
        assert reports[1]["migrated"] == 0
        assert reports[1]["already_current"] == reports[0]["already_current"] + 2

        after = store.rows()
        assert after[big_key] == before[big_key]  # byte-identical, valid JSON
        json.loads(after[big_key])
        for session_id, items in _sessions().items():
            assert store.get_items(session_id) == _expected(items, big_migrated=False)


def test_upgrading_session_returns_canonical_items_and_skips_the_write_back(
        tmp_path: Path) -> None:
    require_legacy_reader()
    pytest.importorskip("agents")
    from sqlalchemy.ext.asyncio import create_async_engine

    from handoff_codec.integrations.openai_agents import UpgradingSession

    with mysql_database() as url:
        store = SqlStore(url)
        store.fill({"big": [PLAIN[0], BIG, SMALL]})
        before = store.rows()
        big_key = next(key for key, value in before.items() if len(value) > 60_000)

        async def read() -> list[Any]:
            engine = create_async_engine(store.async_url)
            try:
                session = UpgradingSession(store._sessions(engine, "big"), write_back=True,
                                           backup_file=tmp_path / "read-repair.jsonl")
                try:
                    return list(await session.get_items())
                finally:
                    session.close_write_back()
            finally:
                await engine.dispose()

        with pytest.warns(RuntimeWarning, match=f"column holds {TEXT_BYTES}"):
            items = asyncio.run(read())
        assert items == [PLAIN[0], migrate_item(BIG).item, migrate_item(SMALL).item]
        after = store.rows()
        assert after[big_key] == before[big_key]
        assert store.get_items("big") == [PLAIN[0], BIG, migrate_item(SMALL).item]
