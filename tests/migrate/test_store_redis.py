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


def test_a_resumed_page_reads_every_list_whatever_their_order() -> None:
    """A checkpoint names the page (SCAN cursor), the list and the index where a run
    stopped. The key order within a page can change between runs, since Redis
    rehashes its tables as it goes, so a resumed run must not skip the lists it
    now finds before that one: here the checkpoint names the page's last list.

    The test owns its prefix and passes whatever else the server holds: 2,000
    keys of another prefix are there too, and the store reads with a COUNT
    above the database's size, so that one SCAN page holds every list (SCAN
    stops at COUNT keys or at the end, and the keys it counts are those of the
    whole database, before MATCH and TYPE)."""
    import redis

    from handoff_codec.migrate.stores import MigrateOptions, Shard, open_store

    with redis_prefix() as (url, prefix), redis_prefix() as (_, foreign):
        client = redis.Redis.from_url(url)
        other = client.pipeline(transaction=False)
        for n in range(1000):
            other.rpush(f"{foreign}:s{n}:messages", b'{"role": "user", "content": "x"}')
            other.set(f"{foreign}:k{n}", b"x")
        other.execute()
        lists = [f"{prefix}:s{n}:messages".encode() for n in range(6)]
        for key in lists:
            client.rpush(key, b'{"role": "user", "content": "a"}',
                         b'{"role": "user", "content": "b"}')
        size = 2 * client.dbsize() + 1000  # the store scans with COUNT max(size, 100)
        cursor, page = client.scan(0, match=f"{prefix}:*:messages", count=size, _type="list")
        assert (cursor, sorted(page)) == (0, sorted(lists))  # one page, as the store reads it
        last = page[-1]
        store = open_store(url, MigrateOptions(key_prefix=prefix), client=client).connect()
        after = {"cursor": 0, "key": last.decode(), "index": 1}
        read = [row.key for batch in store.batches(after, size, Shard()) for row in batch.rows]
        assert sorted(read) == sorted([(key, n) for key in lists if key != last
                                       for n in (0, 1)] + [(last, 1)])
