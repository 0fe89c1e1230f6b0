"""``migrate --restore-empty``: placeholder turns made empty again in stored summaries and items.

Issue 12: ``migrate --restore-empty`` applies ``replay.restore_empty`` so
placeholders do not pile up hop after hop, and a turn that starts with a
placeholder and goes on (the ``(empty)`` leak, NousResearch/hermes-agent) is
reported, never cut. Without the flag a migration is what it always was.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec.migrate import MigrationStatus, migrate_item, migrate_value
from handoff_codec.migrate.stores.jsonl import migrate_jsonl
from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
from handoff_codec.replay import PLACEHOLDERS
from tests.support.migrate_support import (
    envelope,
    get_items,
    insert_raw,
    make_session_db,
    require_legacy_reader,
    run_cli,
    snapshot,
)
from tests.support.profiles import examples
from tests.support.server_stores import SqlStore, run_migrate
from tests.support.services import postgres_database

Item = dict[str, Any]

QUESTION: Item = {"role": "user", "content": "Is the build green?"}
EMPTY_TEXT: Item = {"role": "assistant", "content": "(empty)"}  # Hermes Agent
EMPTY_PARTS: Item = {  # LiteLLM's placeholder, in a Responses API output message
    "type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
    "content": [{"type": "output_text", "annotations": [],
                 "text": "[System: Empty message content sanitised to satisfy protocol]"}]}
EMPTY_OUTPUT: Item = {"type": "function_call_output", "call_id": "c1", "output": " (no output)\n"}
LEAK: Item = {"role": "assistant", "content": "(empty) The build is green."}
# A canonical summary whose second turn is handoff-codec's own "." placeholder.
CANONICAL = handoff_codec.format.summarize([QUESTION, {"role": "assistant", "content": "."},
                                     {"role": "user", "content": "thanks"}])
# A 0.6-0.17.0 summary (a continuation line) holding a placeholder and a leak.
LEGACY: Item = {"role": "assistant", "content": envelope(
    "1. user: line one", "line two", "2. assistant: (empty)",
    "3. assistant: (empty) I checked the logs")}


def _loads(item: Item) -> list[Item]:
    return handoff_codec.loads(item["content"])


# --- the per-item rule -------------------------------------------------------------

def test_a_canonical_summary_with_a_placeholder_is_rewritten_only_with_the_flag() -> None:
    assert migrate_item(CANONICAL).status is MigrationStatus.ALREADY_CURRENT
    result = migrate_item(CANONICAL, restore_empty=True)
    assert result.status is MigrationStatus.MIGRATED and result.changed
    assert _loads(result.item) == [QUESTION, {"role": "assistant", "content": ""},
                                   {"role": "user", "content": "thanks"}]
    assert [(r.index, r.placeholder.text) for r in result.restored] == [(1, ".")]
    assert not result.key_order_only and not result.leaks
    again = migrate_item(result.item, restore_empty=True)
    assert again.status is MigrationStatus.ALREADY_CURRENT and not again.restored


def test_a_legacy_summary_is_migrated_and_restored_and_its_leak_kept() -> None:
    require_legacy_reader()
    plain = migrate_item(LEGACY)
    result = migrate_item(LEGACY, restore_empty=True)
    assert result.status is MigrationStatus.MIGRATED
    assert _loads(plain.item)[1] == {"role": "assistant", "content": "(empty)"}
    items = _loads(result.item)
    assert items[1] == {"role": "assistant", "content": ""}
    assert items[2] == {"role": "assistant", "content": "(empty) I checked the logs"}
    assert [(leak.index, leak.placeholder.text) for leak in result.leaks] == [(2, "(empty)")]


@pytest.mark.parametrize("placeholder", PLACEHOLDERS, ids=lambda p: p.text)
def test_every_known_placeholder_inside_a_summary_is_restored(placeholder: Any) -> None:
    summary = handoff_codec.format.summarize([QUESTION, {"role": "assistant",
                                                  "content": placeholder.text}])
    result = migrate_item(summary, restore_empty=True)
    assert _loads(result.item) == [QUESTION, {"role": "assistant", "content": ""}]


def test_items_that_are_not_summaries_are_restored_as_copies() -> None:
    originals = json.dumps([EMPTY_TEXT, EMPTY_PARTS, EMPTY_OUTPUT, LEAK, QUESTION])
    expected = [
        {"role": "assistant", "content": ""},
        {**EMPTY_PARTS, "content": [{**EMPTY_PARTS["content"][0], "text": ""}]},
        {**EMPTY_OUTPUT, "output": ""},
    ]
    for item, want in zip([EMPTY_TEXT, EMPTY_PARTS, EMPTY_OUTPUT], expected, strict=True):
        assert migrate_item(item).status is MigrationStatus.NOT_SUMMARY
        result = migrate_item(item, restore_empty=True)
        assert result.status is MigrationStatus.RESTORED and result.changed
        assert not result.is_summary and result.item == want
    for item in (LEAK, QUESTION):
        result = migrate_item(item, restore_empty=True)
        assert result.status is MigrationStatus.NOT_SUMMARY and result.item is item
    assert [leak.placeholder.text for leak in migrate_item(LEAK, restore_empty=True).leaks] \
        == ["(empty)"]
    assert json.dumps([EMPTY_TEXT, EMPTY_PARTS, EMPTY_OUTPUT, LEAK, QUESTION]) == originals
    unchanged = [QUESTION, LEAK]
    assert migrate_value(unchanged, restore_empty=True).value is unchanged


turns = st.lists(st.one_of(
    st.sampled_from([p.text for p in PLACEHOLDERS]),
    st.sampled_from(["(empty) and more", " . ", "ok", ""]),
    st.text(max_size=12)), min_size=1, max_size=6)


@examples(300)
@given(turns)
def test_the_migrated_summary_reads_as_flatten_with_restore_empty(texts: list[str]) -> None:
    items = [{"role": ("user", "assistant")[n % 2], "content": text}
             for n, text in enumerate(texts)]
    summary = handoff_codec.format.summarize(items)
    result = migrate_item(summary, restore_empty=True)
    assert result.status in (MigrationStatus.MIGRATED, MigrationStatus.ALREADY_CURRENT)
    assert _loads(result.item) == handoff_codec.format.default_codec.flatten([summary],
                                                                      restore_empty=True)


# --- JSONL: rows, prefilter, dry run, leaks ----------------------------------------

def _write_lines(path: Path, rows: list[str]) -> None:
    path.write_bytes(("\n".join(rows) + "\n").encode("utf-8"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_jsonl_dry_run_counts_then_real_run_changes_only_the_placeholders(
        tmp_path: Path) -> None:
    rows = [
        json.dumps(CANONICAL),
        '{"role": "assistant", "content": "(empty)", "n": 1e400, "z": -0, "u": "\\u00e9"}',
        json.dumps(EMPTY_PARTS, separators=(",", ":")).replace('"annotations":[]',
                                                               '"annotations":[],"lp":[1E3]'),
        json.dumps(EMPTY_OUTPUT),
        json.dumps([EMPTY_TEXT, QUESTION]),
        json.dumps(LEAK),
        '{"role": "assistant", "c\\u006fntent": "(no content)"}',  # the key itself escaped
        "not JSON, no summary.",
        json.dumps(QUESTION),
        '{"role":"assistant","content":[{"type":"text","text":"(em"},{"text":"pty) ",'
        '"type":"text"}]}',  # text parts that together spell a placeholder
    ]
    path = tmp_path / "items.jsonl"
    _write_lines(path, rows)
    before = _sha(path)

    dry = migrate_jsonl(path, dry_run=True, restore_empty=True, list_changes=True)
    assert _sha(path) == before and dry.ok and not dry.written
    found = dry.placeholders
    assert found is not None
    assert (found.turns, found.summaries, found.items) == (7, 1, 6)
    assert found.by_placeholder == {".": 1, "(empty)": 3, "(no output)": 1, "(no content)": 1,
                                    "[System: Empty message content sanitised to satisfy "
                                    "protocol]": 1}
    assert [(leak.row, leak.index, leak.turn, leak.text) for leak in found.leaks] == [
        (6, None, None, "(empty) The build is green.")]
    assert [(c.row, c.index, c.restored) for c in dry.changed_rows or []] == [
        (1, None, 1), (2, None, 1), (3, None, 1), (4, None, 1), (5, 0, 1), (7, None, 1),
        (10, None, 1)]

    real = migrate_jsonl(path, restore_empty=True, backup=False)
    assert real.written and real.placeholders == found and real.migrated == 1
    new = path.read_text(encoding="utf-8").splitlines()
    assert new[1] == '{"role": "assistant", "content": "", "n": 1e400, "z": -0, "u": "\\u00e9"}'
    assert new[2] == rows[2].replace(EMPTY_PARTS["content"][0]["text"], "")
    assert new[3] == rows[3].replace('" (no output)\\n"', '""')
    assert new[4] == rows[4].replace('"(empty)"', '""', 1)
    assert new[6] == '{"role": "assistant", "c\\u006fntent": ""}'
    assert new[9] == rows[9].replace('"(em"', '""').replace('"pty) "', '""')
    assert new[5:6] + new[7:9] == rows[5:6] + rows[7:9]  # the leak and the rest: byte for byte
    assert _loads(json.loads(new[0]))[1] == {"role": "assistant", "content": ""}

    again = migrate_jsonl(path, restore_empty=True, backup=False)
    assert not again.written and again.placeholders is not None
    assert again.placeholders.turns == 0 and len(again.placeholders.leaks) == 1


def test_jsonl_without_the_flag_is_what_it_always_was(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    _write_lines(path, [json.dumps(item) for item in
                        (CANONICAL, EMPTY_TEXT, EMPTY_PARTS, EMPTY_OUTPUT, LEAK)]
                 + ["not JSON."])
    before = _sha(path)
    report = migrate_jsonl(path, backup=False)
    assert _sha(path) == before and not report.written and report.ok
    assert report.placeholders is None and "placeholders" not in report.model_dump()
    assert (report.rows_decoded, report.already_current, report.migrated) == (1, 1, 0)


def test_a_restored_row_that_cannot_be_spliced_is_left_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    _write_lines(path, ['{"type": "function_call_output", "output": "x", "output": "(empty)"}'])
    before = _sha(path)
    report = migrate_jsonl(path, restore_empty=True, backup=False)
    assert _sha(path) == before and not report.ok and report.untouched == 1
    assert "more than one 'output' key" in report.untouched_rows[0].reason
    assert report.placeholders is not None and report.placeholders.turns == 0


# --- SQLite --------------------------------------------------------------------------

def test_sqlite_session_database(tmp_path: Path) -> None:
    require_legacy_reader()
    db = tmp_path / "sessions.db"
    sessions = {"a": [QUESTION, EMPTY_TEXT, CANONICAL, EMPTY_OUTPUT],
                "b": [LEGACY, EMPTY_PARTS, LEAK, QUESTION]}
    make_session_db(db, sessions)
    row_id = insert_raw(db, "b", b'{"role":"assistant","content":"[empty string]"}')
    before = snapshot(db)

    plain = migrate_sqlite(db, dry_run=True)
    assert plain.migrated == 1 and plain.placeholders is None  # LEGACY only

    dry = migrate_sqlite(db, dry_run=True, restore_empty=True)
    assert snapshot(db) == before and dry.placeholders is not None
    assert (dry.migrated, dry.placeholders.items, dry.placeholders.summaries) == (2, 4, 2)
    assert dry.placeholders.turns == 6
    assert [(leak.turn, leak.placeholder) for leak in dry.placeholders.leaks] == [
        (2, "(empty)"), (None, "(empty)")]

    real = migrate_sqlite(db, restore_empty=True)
    assert real.written and real.backup and real.placeholders == dry.placeholders
    expected = {sid: [migrate_item(item, restore_empty=True).item for item in items]
                for sid, items in sessions.items()}
    assert get_items(db, "a") == expected["a"]
    assert get_items(db, "b") == [*expected["b"], {"role": "assistant", "content": ""}]
    assert expected["a"][1] == {"role": "assistant", "content": ""}
    old = {row[0]: row for row in before[1]}
    changed = {row[0]: row for row in snapshot(db)[1] if row != old[row[0]]}
    assert len(changed) == 6  # 2 summaries and 4 other items; nothing else is written
    for key, row in changed.items():
        assert json.loads(row[2]) == migrate_item(json.loads(old[key][2]),
                                                  restore_empty=True).item
    assert changed[row_id][2] == b'{"role":"assistant","content":""}'
    assert migrate_sqlite(db, restore_empty=True).written is False


# --- the CLI ---------------------------------------------------------------------------

def test_cli_flag_dry_run_text_json_and_next_step(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    _write_lines(path, [json.dumps(item) for item in (CANONICAL, EMPTY_TEXT, LEAK)])
    before = _sha(path)
    text = run_cli(str(path), "--dry-run", "--restore-empty", "--list", check_code=0).stdout
    assert "would restore:    2 placeholder turns (1 in 1 summaries, 1 other items; " \
           '"(empty)": 1; ".": 1)' in text
    assert 'placeholder leaks: 1 turns start with a placeholder' in text
    assert '    line 3: "(empty) The build is green."' in text
    assert "    line 2: placeholder emptied" in text
    assert f"next: handoff-codec migrate {path} --restore-empty" in text
    report = json.loads(run_cli(str(path), "--dry-run", "--restore-empty", "--json",
                                check_code=0).stdout)
    assert report["placeholders"]["turns"] == 2 and len(report["placeholders"]["leaks"]) == 1

    plain = run_cli(str(path), "--dry-run", check_code=0).stdout
    assert "restore" not in plain and "placeholder" not in plain
    assert "next: nothing to migrate" in plain
    assert "placeholders" not in json.loads(run_cli(str(path), "--dry-run", "--json",
                                                    check_code=0).stdout)
    assert _sha(path) == before

    run_cli(str(path), "--restore-empty", "--no-backup", check_code=0)
    assert [json.loads(line) for line in path.read_text().splitlines()][1:] == [
        {"role": "assistant", "content": ""}, LEAK]


# --- server stores ---------------------------------------------------------------------

def _server_cycle(url: str, tmp_path: Path) -> None:
    store = SqlStore(url)
    sessions = {"s1": [QUESTION, EMPTY_TEXT, CANONICAL], "s2": [EMPTY_PARTS, LEAK, EMPTY_OUTPUT]}
    store.fill(sessions)
    before = store.rows()

    plain = run_migrate(url, "--dry-run", check_code=0)
    assert plain["would_migrate"] == 0 and "placeholders" not in plain
    dry = run_migrate(url, "--dry-run", "--restore-empty", check_code=0)
    assert store.rows() == before
    assert {k: dry["placeholders"][k] for k in ("turns", "summaries", "items")} == {
        "turns": 4, "summaries": 1, "items": 3}
    [leak] = dry["placeholders"]["leaks"]
    assert leak["text"] == LEAK["content"] and leak["key"] and leak["turn"] is None

    backup = str(tmp_path / "backup.jsonl")
    real = run_migrate(url, "--restore-empty", "--backup-file", backup, check_code=0)
    assert real["placeholders"] == dry["placeholders"] and real["migrated"] == 1
    for sid, items in sessions.items():
        assert store.get_items(sid) == [migrate_item(i, restore_empty=True).item for i in items]
    after = store.rows()
    assert sum(before[k] != after[k] for k in before) == 4
    assert run_migrate(url, "--restore-empty", "--backup-file", backup + ".2",
                       check_code=0)["placeholders"]["turns"] == 0
    restored = run_migrate(url, "--restore", backup, check_code=0)
    assert restored["restored"] == 4 and store.rows() == before


def test_sqlalchemy_store_on_sqlite(tmp_path: Path) -> None:
    _server_cycle(f"sqlite:///{tmp_path / 'sessions.db'}", tmp_path)


def test_sqlalchemy_store_on_postgres(tmp_path: Path) -> None:
    with postgres_database() as url:
        _server_cycle(url, tmp_path)


def test_encrypted_rows_are_restored_and_leaks_withheld() -> None:
    pytest.importorskip("cryptography")
    from agents.extensions.memory import encrypt_session as sdk
    from cryptography.fernet import Fernet

    from handoff_codec.migrate import EncryptedRule, Row
    from handoff_codec.migrate.stores import PlaceholderReport, ServerReport

    key = Fernet.generate_key().decode()
    cipher = sdk._derive_session_fernet_key(sdk._ensure_fernet_key_bytes(key), "s1")

    def row(n: int, item: Item) -> Row:
        token = cipher.encrypt(json.dumps(item).encode()).decode()
        envelope = {"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": token}
        return Row((n,), "s1", json.dumps(envelope).encode())

    rule = EncryptedRule(key, restore_empty=True)
    report = ServerReport(path="test", store="test", dry_run=True,
                          placeholders=PlaceholderReport())
    assert EncryptedRule(key)(row(1, EMPTY_TEXT)).new is None
    outcome = rule(row(1, EMPTY_TEXT))
    assert outcome.new is not None
    payload = json.loads(outcome.new)["payload"]
    assert json.loads(cipher.decrypt(payload.encode())) == {"role": "assistant", "content": ""}
    report.count_row(row(1, EMPTY_TEXT), outcome)
    report.count_row(row(2, LEAK), rule(row(2, LEAK)))
    assert report.placeholders is not None and report.placeholders.items == 1
    [leak] = report.placeholders.leaks
    assert leak.key == [2] and "The build" not in leak.text


def test_server_report_merges_shards_and_counts_a_refused_row_once() -> None:
    from handoff_codec.migrate import Row, RowRule
    from handoff_codec.migrate.stores import PlaceholderReport, ServerReport

    def report() -> ServerReport:
        return ServerReport(path="t", store="t", dry_run=True, placeholders=PlaceholderReport())

    rule = RowRule(restore_empty=True)
    empty, leak = json.dumps(EMPTY_TEXT).encode(), json.dumps(LEAK).encode()
    first, second = report(), report()
    first.count_row(Row((1,), "s", empty), rule(empty))
    second.count_row(Row((2,), "s", leak), rule(leak))
    blocked = report()
    blocked.count_row(Row((3,), "s", empty), rule(empty).refused("cannot splice"))
    assert blocked.placeholders is not None and blocked.placeholders.turns == 0
    assert (blocked.untouched, blocked.migrated) == (1, 0)
    assert blocked.untouched_rows[0].reason == "cannot splice"
    first.merge(second)
    assert first.placeholders is not None
    assert (first.placeholders.turns, len(first.placeholders.leaks)) == (1, 1)
    assert first.placeholders.leaks[0].key == [2]


def test_sqlite_cli_row_that_is_not_utf8_is_still_reported_with_the_flag(
        tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    make_session_db(db, {"a": [QUESTION]})
    insert_raw(db, "a", b'{"role":"assistant","content":"\xff"}')
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('a', 'x.')")
    conn.close()
    report = run_migrate(str(db), "--dry-run", "--restore-empty", check_code=1)
    assert report["invalid_rows"] == 1 and "UTF-8" in report["untouched_rows"][0]["reason"]
