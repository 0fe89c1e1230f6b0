"""What a migration does to a row: only the summary text changes, every row is addressed
by a key that is really its own, and a row the tool cannot read is reported, not fatal."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import handoff_codec
from handoff_codec.format import DEFAULT_START
from handoff_codec.migrate.stores.jsonl import migrate_jsonl
from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    make_session_db,
    require_legacy_reader,
    run_cli,
)

# Numbers and keys that a JSON round trip through Python would change:
# 1e400 -> Infinity, -0 -> 0, 2E3 -> 2000.0, 1e-400 -> 0.0, duplicate keys -> the last one.
ODD_FIELDS = '"meta": {"big": 1e400, "neg": -0, "e": 2E3, "tiny": 1e-400, "k": 1, "k": 2}'


def _odd_row(summary: dict[str, Any]) -> str:
    """A summary row with odd numbers and a duplicate key around its content."""
    literal = json.dumps(summary["content"])
    return '{"role": "assistant", ' + ODD_FIELDS + ', "content": ' + literal + ',  "n": 1.50}'


def _expected(row: str, summary: dict[str, Any]) -> str:
    """``row`` with only its summary text replaced by the canonical text."""
    old = json.dumps(summary["content"])
    new = json.dumps(handoff_codec.migrate.migrate_item(summary).item["content"])
    assert row.count(old) == 1 and old != new
    return row.replace(old, new)


def _messages_db(path: Path, ddl: str, rows: list[tuple[Any, str]]) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY)")
        conn.execute("INSERT INTO agent_sessions VALUES ('s')")
        conn.execute(ddl)
        conn.executemany(
            "INSERT INTO agent_messages (id, session_id, message_data) VALUES (?, 's', ?)", rows)
    conn.close()


def _cells(path: Path, order: str = "rowid") -> list[tuple[Any, ...]]:
    """(id, message_data, its type) of every message row; cells read as stored bytes."""
    conn = sqlite3.connect(path)
    conn.text_factory = bytes
    try:
        return conn.execute("SELECT id, message_data, typeof(message_data) FROM agent_messages "
                            f"ORDER BY {order}").fetchall()
    finally:
        conn.close()


# ------------------------------------------------------------- addressing rows (item 1)


def test_rows_sharing_an_id_or_without_one_are_each_migrated_once(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "shared.db"
    user = json.dumps(PLAIN[0])
    legacy = json.dumps(CRAFTED[0])
    rows = [(1, user), (1, legacy), (None, legacy), (None, user), (2, user)]
    _messages_db(path, "CREATE TABLE agent_messages (id INTEGER, session_id TEXT, "
                       "message_data TEXT)", rows)
    result = run_cli(str(path), "--batch-size", "2", "--json", "--no-backup", timeout=60,
                     check_code=0)
    assert json.loads(result.stdout)["migrated"] == 2
    new = json.dumps(handoff_codec.migrate.migrate_item(CRAFTED[0]).item)
    assert [(key, data.decode()) for key, data, _ in _cells(path)] == [
        (1, user), (1, new), (None, new), (None, user), (2, user)]


def test_a_table_whose_rows_cannot_be_addressed_is_refused(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "no_rowid.db"
    _messages_db(path, "CREATE TABLE agent_messages (id INTEGER, session_id TEXT, "
                       "message_data TEXT, PRIMARY KEY (session_id, id)) WITHOUT ROWID",
                 [(1, json.dumps(CRAFTED[0]))])
    before = _cells(path, order="id")
    result = run_cli(str(path), check_code=1)
    assert "cannot be addressed" in result.stderr
    assert _cells(path, order="id") == before
    # A WITHOUT ROWID table with one integer key is addressed by that key.
    keyed = tmp_path / "keyed.db"
    _messages_db(keyed, "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, "
                        "message_data TEXT) WITHOUT ROWID",
                 [(1, json.dumps(PLAIN[0])), (5, json.dumps(CRAFTED[0]))])
    assert migrate_sqlite(keyed, backup=False).migrated == 1


# ----------------------------------------------------------- only the summary changes (item 5)


def test_sqlite_row_differs_only_in_the_summary_text(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "odd.db"
    make_session_db(path, {"s": [PLAIN[0]]})
    rows = [_odd_row(summary) for summary in CRAFTED[:3]]
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
                         [(row,) for row in rows])
    conn.close()
    before = _cells(path)
    report = migrate_sqlite(path, backup=False)
    assert report.migrated == 3 and report.untouched == 0
    after = _cells(path)
    assert after[0] == before[0]
    assert [cell[1].decode() for cell in after[1:]] == [
        _expected(row, summary) for row, summary in zip(rows, CRAFTED[:3], strict=True)]


def test_jsonl_line_differs_only_in_the_summary_text(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "odd.jsonl"
    listed = "[" + _odd_row(CRAFTED[1]) + " , 1e400, " + json.dumps(PLAIN[0]) + "]"
    lines = [_odd_row(CRAFTED[0]), listed, json.dumps(PLAIN[1])]
    path.write_text("\n".join(lines) + "\n")
    report = migrate_jsonl(path, backup=False)
    assert report.migrated == 2 and report.untouched == 0
    expected = [_expected(lines[0], CRAFTED[0]), _expected(listed, CRAFTED[1]), lines[2]]
    assert path.read_text().splitlines() == expected


def test_an_item_with_two_content_keys_is_reported_and_left_alone(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "twice.jsonl"
    line = ('{"role": "assistant", "content": "first", "content": '
            + json.dumps(CRAFTED[0]["content"]) + "}\n")
    path.write_text(line)
    report = migrate_jsonl(path, backup=False)
    assert report.migrated == 0 and report.untouched == 1
    assert "more than one 'content'" in report.untouched_rows[0].reason
    assert path.read_text() == line


# ------------------------------------------------------------ unreadable rows (items 6 and 7)


def test_an_integer_too_long_to_read_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "digits.jsonl"
    huge = '{"role": "assistant", "n": ' + "7" * 5000 + ', "content": ' + json.dumps(
        CRAFTED[0]["content"]) + "}"
    path.write_text(huge + "\n" + json.dumps(CRAFTED[1]) + "\n")
    result = run_cli(str(path), "--json", "--no-backup", check_code=1)
    report = json.loads(result.stdout)
    assert report["migrated"] == 1 and report["invalid_rows"] == 1
    assert report["untouched_rows"][0]["row"] == 1
    assert path.read_text().splitlines()[0] == huge


def _insert_text_bytes(path: Path, data: bytes) -> int:
    """A TEXT cell holding ``data`` as it is, valid UTF-8 or not."""
    conn = sqlite3.connect(path)
    with conn:
        cursor = conn.execute("INSERT INTO agent_messages (session_id, message_data) "
                              "VALUES ('s', CAST(? AS TEXT))", (data,))
    conn.close()
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def test_a_text_cell_that_is_not_utf8_is_reported_by_id(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "latin1.db"
    make_session_db(path, {"s": [PLAIN[0], CRAFTED[0]]})
    bad = _insert_text_bytes(path, json.dumps(CRAFTED[1]).encode()[:-2] + b"\xe9\"}")
    plain_bad = _insert_text_bytes(path, b'{"role": "user", "content": "caf\xe9"}')
    dry = json.loads(run_cli(str(path), "--dry-run", "--json", check_code=1).stdout)
    assert dry["would_migrate"] == 1
    assert {(r["row"], "UTF-8" in r["reason"]) for r in dry["untouched_rows"]} == {
        (bad, True), (plain_bad, True)}
    before = _cells(path)
    run_cli(str(path), "--no-backup", check_code=1)
    after = {row[0]: row for row in _cells(path)}
    for row in before:
        if row[0] in (bad, plain_bad):
            assert after[row[0]] == row  # the same bytes, still TEXT
        else:
            assert after[row[0]][2] == b"text"


# ------------------------------------------------------------------- file names (item 8)


def test_a_database_whose_name_is_not_utf8(tmp_path: Path) -> None:
    require_legacy_reader()
    made = tmp_path / "made.db"
    make_session_db(made, {"s": [PLAIN[0], CRAFTED[0]]})
    path = tmp_path / os.fsdecode(b"sessions-\xff.db")
    made.rename(path)
    result = run_cli(str(path), check_code=0)
    assert "migrated:" in result.stdout
    backups = [p for p in tmp_path.iterdir() if os.fsencode(p.name).startswith(
        b"sessions-\xff.db.bak-")]
    assert len(backups) == 1
    assert migrate_sqlite(path, dry_run=True).already_current == 1


def test_cells_keep_their_storage_type(tmp_path: Path) -> None:
    """A summary stored as a BLOB is rewritten as a BLOB."""
    require_legacy_reader()
    path = tmp_path / "blob.db"
    make_session_db(path, {"s": [PLAIN[0]]})
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', ?)",
                     (json.dumps(CRAFTED[0]).encode(),))
    conn.close()
    assert migrate_sqlite(path, backup=False).migrated == 1
    assert [row[2] for row in _cells(path)] == [b"text", b"blob"]


def test_the_prefilter_sees_an_escaped_marker_and_skips_other_escapes(tmp_path: Path) -> None:
    require_legacy_reader()
    summary = CRAFTED[0]
    escaped = json.dumps(summary).replace("<", "\\u003c").replace("H", "\\u0048")
    assert json.loads(escaped) == summary and DEFAULT_START not in escaped
    other = json.dumps({"role": "user", "content": "caf\u00e9"})  # "\u00e9", no marker
    path = tmp_path / "escaped.jsonl"
    path.write_text(escaped + "\n" + other + "\n")
    report = migrate_jsonl(path, backup=False)
    assert report.migrated == 1 and report.rows_decoded == 1
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["content"] != summary["content"] and lines[1] == other
