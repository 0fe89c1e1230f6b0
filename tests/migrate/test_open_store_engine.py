"""``open_store(url, options, engine=...)``: an application's own SQLAlchemy engine, used
as it is (read-repair goes through it), and never disposed by the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_codec.migrate.stores import MigrateOptions, Shard, open_store
from tests.support.migrate_support import CRAFTED, PLAIN, make_session_db


def test_a_sql_store_reads_through_the_engine_it_is_given(tmp_path: Path) -> None:
    import sqlalchemy as sa

    db = tmp_path / "s.db"
    make_session_db(db, {"s": [CRAFTED[0], PLAIN[0]]})
    connected: list[object] = []
    engine = sa.create_engine(f"sqlite:///{db}")
    sa.event.listen(engine, "connect", lambda conn, _record: connected.append(conn))
    try:
        store = open_store(f"sqlite:///{tmp_path / 'elsewhere.db'}", MigrateOptions(),
                           engine=engine).connect()
        try:
            rows = [row for batch in store.batches(None, 10, Shard()) for row in batch.rows]
        finally:
            store.close()
        assert len(rows) == 2 and connected  # the given engine's file, through its pool
        with engine.connect() as conn:  # not disposed by the store's close
            assert conn.execute(sa.text("SELECT count(*) FROM agent_messages")).scalar() == 2
    finally:
        engine.dispose()
    assert not (tmp_path / "elsewhere.db").exists()


def test_engine_is_for_sql_urls_and_not_beside_a_client(tmp_path: Path) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with pytest.raises(TypeError, match="SQL URL"):
            open_store("redis://127.0.0.1:6379/0", engine=engine)
        with pytest.raises(TypeError, match="not both"):
            open_store("sqlite:///x.db", engine=engine, client=object())
    finally:
        engine.dispose()
