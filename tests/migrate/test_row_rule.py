"""One per-row rule: the same bad row gets the same outcome and reason in every store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from handoff_codec.migrate import RowRule, RowStatus, migrate_item

# Private: the refusal test breaks the rule's string escaping on purpose (fault injection).
from handoff_codec.migrate import rule as rule_module
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    UNREADABLE,
    insert_raw,
    make_session_db,
    require_legacy_reader,
)
from tests.support.server_stores import SqlStore, run_migrate
from tests.support.services import postgres_database, redis_prefix

MARKER = json.dumps(DEFAULT_START)
LEGACY = json.dumps(CRAFTED[0]["content"])
# (name, row bytes): each may hold a summary, and none can be migrated.
BAD = [
    ("not UTF-8", b'{"role": "assistant", "content": "\xff ' + DEFAULT_START.encode() + b'"}'),
    ("not JSON", ("{not json " + MARKER).encode()),
    ("huge integer", ('{"n": ' + "9" * 5000 + ', "content": ' + MARKER + "}").encode()),
    ("two content keys", ('{"role": "assistant", "content": "x", "content": ' + LEGACY
                          + "}").encode()),
    ("unreadable summary", json.dumps(UNREADABLE).encode()),
]
GOOD = json.dumps(CRAFTED[1]).encode()


def _reasons(report: dict[str, object]) -> list[str]:
    rows = sorted(report["untouched_rows"], key=lambda r: r["row"])  # type: ignore[arg-type,index]
    return [row["reason"] for row in rows]  # type: ignore[index]


def _expected(names: list[str]) -> list[str]:
    rule = RowRule()
    reasons = []
    for name, raw in BAD:
        if name in names:
            outcome = rule(raw)
            if outcome.status is RowStatus.UNCHANGED:  # an item left untouched
                reasons.append(str(outcome.results[0].reason))
            else:
                reasons.append(str(outcome.reason))
    return reasons


def test_the_rule_gives_each_bad_row_its_outcome() -> None:
    require_legacy_reader()
    rule = RowRule()
    statuses = [rule(raw).status for _, raw in BAD]
    assert statuses == [RowStatus.INVALID, RowStatus.INVALID, RowStatus.INVALID,
                        RowStatus.REFUSED, RowStatus.UNCHANGED]
    good = rule(GOOD)
    assert good.status is RowStatus.MIGRATED and good.new is not None
    assert rule(good.new).status is RowStatus.UNCHANGED
    assert rule(json.dumps(PLAIN[0]).encode()).status is RowStatus.UNCHANGED


@pytest.mark.parametrize("store", ["jsonl", "sqlite-file", "sqlite-url", "postgresql",
                                   "redis"])
def test_the_same_bad_row_gets_the_same_reason_in_every_store(store: str,
                                                               tmp_path: Path) -> None:
    require_legacy_reader()
    names = [name for name, _ in BAD if not (store == "postgresql" and name == "not UTF-8")]
    rows = [GOOD] + [raw for name, raw in BAD if name in names]
    expected = _expected(names)
    options: tuple[str, ...] = ("--dry-run",)
    if store == "jsonl":
        path = tmp_path / "items.jsonl"
        path.write_bytes(b"\n".join(rows) + b"\n")
        report = run_migrate(str(path), *options, check_code=1)
    elif store.startswith("sqlite"):
        db = tmp_path / "s.db"
        make_session_db(db, {"s": []})
        for raw in rows:
            insert_raw(db, "s", raw)
        target = str(db) if store == "sqlite-file" else f"sqlite:///{db}"
        report = run_migrate(target, *options, check_code=1)
    elif store == "postgresql":
        with postgres_database() as url:
            sql = SqlStore(url)
            sql.fill({"s": [PLAIN[0]]})
            for raw in rows:
                sql.execute("INSERT INTO agent_messages (session_id, message_data) "
                            "VALUES ('s', :v)", {"v": raw.decode()})
            report = run_migrate(url, *options, check_code=1)
    else:
        import redis

        with redis_prefix() as (url, prefix):
            client = redis.Redis.from_url(url)
            client.rpush(f"{prefix}:s:messages", *rows)
            client.close()
            report = run_migrate(url, "--key-prefix", prefix, *options, check_code=1)
    assert _reasons(report) == expected
    assert report["would_migrate"] == 1 and "migrated" not in report  # a dry run
    assert report["invalid_rows"] == sum(name in ("not UTF-8", "not JSON", "huge integer")
                                         for name in names)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(), inner, max_size=3), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(extra=st.dictionaries(st.text().filter(lambda key: key not in ("role", "content")),
                             json_values, max_size=4),
       said=st.text(st.characters(blacklist_characters="\n", codec="utf-8"), max_size=40),
       ensure_ascii=st.booleans(), separators=st.sampled_from([(", ", ": "), (",", ":")]),
       content_first=st.booleans())
def test_a_migrated_row_reads_back_as_the_migrated_item(
    extra: dict[str, object], said: str, ensure_ascii: bool, separators: tuple[str, str],
    content_first: bool,
) -> None:
    # Any object row holding a legacy summary (a bare role), written any way
    # json.dumps writes: the new row reads back as the same object with only
    # the canonical content.
    require_legacy_reader()
    content = (f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n1. user: {said}\n2. assistant\n"
               f"{DEFAULT_END}")
    item = ({"content": content, **extra, "role": "assistant"} if content_first
            else {**extra, "role": "assistant", "content": content})
    raw = json.dumps(item, ensure_ascii=ensure_ascii, separators=separators).encode()
    outcome = RowRule()(raw)
    assert outcome.status is RowStatus.MIGRATED, outcome
    assert outcome.new is not None
    canonical = migrate_item(item).item["content"]
    assert canonical != content
    assert json.loads(outcome.new) == {**item, "content": canonical}


def test_a_new_literal_that_does_not_read_back_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were the escaping of the new content wrong, the row would not be written.
    require_legacy_reader()
    raw = json.dumps(CRAFTED[0]).encode()
    assert RowRule()(raw).status is RowStatus.MIGRATED  # the good case first
    for broken in ('"unterminated', '"x" "y"', '"a\nb"', "not a string"):
        monkeypatch.setattr(rule_module, "string_literal", lambda _content, _old, b=broken: b)
        outcome = RowRule()(raw)
        assert outcome.status is RowStatus.REFUSED
        assert "would not read back as the migrated items" in str(outcome.reason)
