"""``handoff-codec migrate`` on real SQLiteSession databases."""

from __future__ import annotations

import json
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec.migrate.stores import StoreError
from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
from tests.support.migrate_support import (
    CRAFTED,
    NONCANONICAL_CURRENT,
    PLAIN,
    UNREADABLE,
    cli_command,
    cli_env,
    fixture_summaries,
    get_items,
    insert_raw,
    make_session_db,
    one_line_error,
    require_legacy_reader,
    run_cli,
    sha256,
    snapshot,
)

Item = dict[str, Any]


def _legacy_summaries() -> list[Item]:
    """Legacy summaries from the real old writers where available, else hand-written."""
    require_legacy_reader()
    try:
        found = [s for v, _, s in fixture_summaries()
                 if handoff_codec.migrate.migrate_item(s).status == "migrated"]
    except pytest.skip.Exception:
        found = []
    return [*CRAFTED, NONCANONICAL_CURRENT, *found[:30]]


@pytest.fixture
def session_db(tmp_path: Path) -> tuple[Path, dict[str, list[Item]]]:
    legacy = _legacy_summaries()
    current = handoff_codec.format.summarize([{"role": "user", "content": "already current"}])
    sessions = {
        "alpha": [PLAIN[0], legacy[0], PLAIN[1], PLAIN[2], current, PLAIN[3]],
        "beta": [*legacy[1:], PLAIN[4]],
        "gamma": [PLAIN[0], UNREADABLE, PLAIN[3]],
    }
    path = tmp_path / "sessions.db"
    make_session_db(path, sessions)
    return path, sessions


def _canonical(item: Item) -> bool:
    content = item["content"]
    return bool(content == handoff_codec.dumps(handoff_codec.decode(content, strict=True).items))


def test_dry_run_writes_nothing(session_db: tuple[Path, Any]) -> None:
    path, _ = session_db
    before = sha256(path)
    files = sorted(p.name for p in path.parent.iterdir())
    result = run_cli(str(path), "--dry-run", "--json", check_code=1)  # UNREADABLE is untouched
    report = json.loads(result.stdout)
    assert report["dry_run"] and not report["written"] and report["backups"] == []
    assert report["would_migrate"] > 0
    assert sha256(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == files  # no backup, no -wal/-shm


def test_migrated_db_reads_back_canonical_through_sqlitesession(
        session_db: tuple[Path, dict[str, list[Item]]]) -> None:
    path, sessions = session_db
    _, rows_before = snapshot(path)
    result = run_cli(str(path), "--json", check_code=1)
    report = json.loads(result.stdout)
    assert report["written"]
    expected_migrated = sum(handoff_codec.migrate.migrate_item(i).status == "migrated"
                            for items in sessions.values() for i in items)
    assert report["migrated"] == expected_migrated > 0
    assert report["untouched"] == 1
    assert [r["row"] for r in report["untouched_rows"]] == [
        next(r[0] for r in rows_before if json.loads(r[2]) == UNREADABLE)]

    for session_id, items in sessions.items():
        read_back = get_items(path, session_id)
        assert len(read_back) == len(items)
        for old, new in zip(items, read_back, strict=True):
            outcome = handoff_codec.migrate.migrate_item(old).status
            if outcome == "migrated":
                assert _canonical(new)
                assert handoff_codec.decode(new["content"], strict=True).items == \
                    handoff_codec.decode(old["content"]).items
                assert {k: v for k, v in new.items() if k != "content"} == \
                    {k: v for k, v in old.items() if k != "content"}
            else:
                assert new == old

    # Rows that did not change are byte-for-byte what the SDK wrote.
    _, rows_after = snapshot(path)
    assert [r[0] for r in rows_after] == [r[0] for r in rows_before]
    for before, after in zip(rows_before, rows_after, strict=True):
        if handoff_codec.migrate.migrate_item(json.loads(before[2])).status != "migrated":
            assert after == before
        else:
            assert after[2] == json.dumps(json.loads(after[2]))  # written as the SDK writes
            assert (after[0], after[1], after[3], after[4]) == (
                before[0], before[1], before[3], before[4])

    # The backup puts back the old state exactly.
    (backup_name,) = report["backups"]
    backup = Path(backup_name)
    assert backup.parent == path.parent and backup.name.startswith("sessions.db.bak-")
    run_cli(str(path), "--restore", str(backup), check_code=0)
    assert snapshot(path)[1] == rows_before


def test_second_run_reports_zero_migrated_and_changes_nothing(
        session_db: tuple[Path, Any]) -> None:
    path, _ = session_db
    first = json.loads(run_cli(str(path), "--json", "--no-backup").stdout)
    assert first["migrated"] > 0 and first["backups"] == []
    state = snapshot(path)
    digest = sha256(path)
    second = run_cli(str(path), "--json", check_code=1)
    report = json.loads(second.stdout)
    assert report["migrated"] == 0 and not report["written"] and report["backups"] == []
    assert report["already_current"] == first["migrated"] + first["already_current"]
    assert snapshot(path) == state
    assert sha256(path) == digest
    assert not list(path.parent.glob("*.bak-*"))


def test_text_summary(session_db: tuple[Path, Any]) -> None:
    path, _ = session_db
    out = run_cli(str(path), "--dry-run").stdout
    for label in ("rows scanned:", "summaries found:", "would migrate:", "already current:"):
        assert label in out
    assert re.search(r"^  left untouched: +1$", out, re.M), out
    assert re.search(r"row id \d+: summary could not be read", out)


def test_corrupt_rows_are_reported_and_left_alone(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "corrupt.db"
    make_session_db(path, {"s": [PLAIN[0], CRAFTED[0]]})
    bad_json = insert_raw(path, "s", json.dumps(CRAFTED[2])[:-40])  # a torn summary
    bad_utf8 = insert_raw(path, "s", b"\xff\xfe not utf-8")
    empty = insert_raw(path, "s", "")  # holds no summary: not decoded, not reported
    legacy_blob = insert_raw(path, "s", json.dumps(CRAFTED[1]).encode())
    _, before = snapshot(path)
    result = run_cli(str(path), "--json", check_code=1)
    report = json.loads(result.stdout)
    assert report["invalid_rows"] == 2 and report["untouched"] == 2
    reasons = {r["row"]: r["reason"] for r in report["untouched_rows"]}
    assert set(reasons) == {bad_json, bad_utf8}
    assert "invalid JSON" in reasons[bad_json] and "UTF-8" in reasons[bad_utf8]
    assert report["migrated"] == 2  # CRAFTED[0] and the BLOB row
    after = {row[0]: row for row in snapshot(path)[1]}
    for row in before:
        if row[0] in (*reasons, empty):
            assert after[row[0]] == row
    assert _canonical(json.loads(after[legacy_blob][2]))
    # SQLiteSession skips the corrupt rows and reads the rest.
    assert len(get_items(path, "s")) == 3


def test_custom_table_names(tmp_path: Path) -> None:
    path = tmp_path / "custom.db"
    tables = {"sessions_table": "my_sessions", "messages_table": "my_messages"}
    make_session_db(path, {"s": [PLAIN[0], NONCANONICAL_CURRENT]}, **tables)
    missing = run_cli(str(path), check_code=2)
    assert "no table 'agent_sessions'" in one_line_error(missing)
    ok = run_cli(str(path), "--sessions-table", "my_sessions", "--messages-table", "my_messages",
                 "--json", check_code=0)
    assert json.loads(ok.stdout)["migrated"] == 1
    items = get_items(path, "s", **tables)
    assert items[0] == PLAIN[0] and _canonical(items[1])


@pytest.mark.parametrize("kind", ["missing", "directory", "not_db", "not_db_auto", "bad_flag",
                                  "db_as_jsonl"])
def test_usage_errors_exit_2_with_one_line(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "x.db"
    args: list[str] = [str(target)]
    if kind == "directory":
        target.mkdir()
    elif kind == "not_db":
        target.write_text("hello\n")
        args += ["--format", "sqlite"]
    elif kind == "not_db_auto":
        target.write_text("hello\n")
    elif kind == "bad_flag":
        target.write_text("{}\n")
        args += ["--batch-size", "0"]
    elif kind == "db_as_jsonl":
        make_session_db(target, {"s": [PLAIN[0]]})
        args += ["--format", "jsonl"]
    result = run_cli(*args, check_code=2)
    if kind == "bad_flag":
        assert "Traceback" not in result.stderr and "--batch-size" in result.stderr
    else:
        one_line_error(result)
    if kind in ("not_db", "not_db_auto"):
        assert target.read_text() == "hello\n"


def test_locked_database_fails_cleanly_and_writes_nothing(
        session_db: tuple[Path, Any]) -> None:
    path, _ = session_db
    state = snapshot(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            migrate_sqlite(path, timeout=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert snapshot(path) == state
    assert not list(path.parent.glob("*.bak-*"))


def test_api_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such file"):
        migrate_sqlite(tmp_path / "nope.db")


def test_small_batches_give_the_same_result(session_db: tuple[Path, Any], tmp_path: Path) -> None:
    path, _ = session_db
    other = tmp_path / "copy.db"
    shutil.copy(path, other)
    a = migrate_sqlite(path, batch_size=1, backup=False)
    b = migrate_sqlite(other, batch_size=1000, backup=False)
    assert a.model_dump(exclude={"path"}) == b.model_dump(exclude={"path"})
    assert snapshot(path) == snapshot(other)


@pytest.mark.parametrize("options", [{}, {"dry_run": True}, {"list_changes": True},
                                     {"restore_empty": True}, {"legacy_only": True}])
def test_worker_processes_give_the_same_result(session_db: tuple[Path, Any], tmp_path: Path,
                                               options: dict[str, Any]) -> None:
    path, _ = session_db
    for data in (b"\xff\xfe not utf-8 <CONVERSATION HISTORY>", b"\xff no marker", 42,
                 json.dumps(CRAFTED[2])[:-40], json.dumps([CRAFTED[1], PLAIN[0]]),
                 json.dumps(CRAFTED[0]).encode(), json.dumps({"role": "user", "content": "."})):
        insert_raw(path, "alpha", data)
    other = tmp_path / "copy.db"
    shutil.copy(path, other)
    one = migrate_sqlite(path, batch_size=3, backup=False, **options)
    several = migrate_sqlite(other, batch_size=3, backup=False, workers=3, **options)
    assert several.model_dump(exclude={"path"}) == one.model_dump(exclude={"path"})
    assert snapshot(other) == snapshot(path)


def test_an_outcome_from_a_worker_counts_as_the_parents_own() -> None:
    require_legacy_reader()
    import pickle

    from handoff_codec.migrate import RowRule
    from handoff_codec.migrate.stores import StoreReport

    # Private: the packed form crossing the process boundary has no public face.
    from handoff_codec.migrate.stores._workers import apply_for_parent, apply_rule, unpack

    raws: list[bytes | None] = [
        None, b"\xff <CONVERSATION HISTORY>", json.dumps(CRAFTED[2])[:-40].encode(),
        *(json.dumps(item).encode() for item in (*CRAFTED, *_legacy_summaries(), UNREADABLE,
                                                  NONCANONICAL_CURRENT, *PLAIN)),
        json.dumps([CRAFTED[1], PLAIN[0]]).encode(),
        json.dumps({"role": "user", "content": "."}).encode()]
    for rule in (RowRule(), RowRule(restore_empty=True), RowRule(legacy_only=True)):
        sent = pickle.loads(pickle.dumps(apply_for_parent(rule, raws)))
        reports = []
        for outcomes in (apply_rule(rule, raws), [unpack(packed) for packed in sent]):
            report = StoreReport(path="x", store="sqlite", dry_run=False, changed_rows=[])
            for row, outcome in enumerate(outcomes):
                report.count(outcome, row)
            reports.append((report.model_dump(), [o.new for o in outcomes]))
        assert reports[1] == reports[0]


# --------------------------------------------------------------------------- crash test

CRASH_ROWS = 6000


def _crash_db(path: Path) -> None:
    """A DB big enough that a migration takes a while: a quarter legacy summaries."""
    legacy = _legacy_summaries()
    rng = random.Random(7)
    make_session_db(path, {"seed": [PLAIN[0]]})
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
            [(f"s{n % 50}", json.dumps(rng.choice(legacy) if n % 4 == 0 else rng.choice(PLAIN)))
             for n in range(CRASH_ROWS)])
        conn.executemany("INSERT OR IGNORE INTO agent_sessions (session_id) VALUES (?)",
                         [(f"s{n}",) for n in range(50)])
    conn.close()


class _Watcher:
    """Reads the CLI's tqdm progress from its stderr: the rows done so far."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.done = 0
        self.total = 0
        self._process = process
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._process.stderr is not None
        buffer = b""
        while chunk := self._process.stderr.read1(4096):  # type: ignore[attr-defined]
            buffer = (buffer + chunk)[-200:]
            counts = re.findall(rb"(\d+)/(\d+)", buffer)
            if counts:
                self.done, self.total = (int(x) for x in counts[-1])

    def join(self) -> None:
        self._thread.join(timeout=10)


def test_killed_migration_leaves_old_or_new_state(tmp_path: Path) -> None:
    original = tmp_path / "original.db"
    _crash_db(original)
    old_state = snapshot(original)

    finished = tmp_path / "finished.db"
    shutil.copy(original, finished)
    started = time.monotonic()
    run_cli(str(finished), "--no-backup", "--batch-size", "200")
    duration = time.monotonic() - started
    new_state = snapshot(finished)
    assert new_state != old_state

    rng = random.Random(2024)
    # Kill when the progress bar shows a given fraction of rows done (rows are
    # updated batch by batch before the single COMMIT), or after a random delay.
    plans: list[tuple[str, float]] = [("progress", f) for f in (0.05, 0.3, 0.6, 0.9)]
    plans += [("delay", rng.uniform(0.0, duration * 1.2)) for _ in range(4)]
    outcomes = []
    for number, (how, when) in enumerate(plans):
        db = tmp_path / f"kill{number}.db"
        shutil.copy(original, db)
        process = subprocess.Popen(
            cli_command(str(db), "--batch-size", "200", "--progress"),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=cli_env())
        watcher = _Watcher(process)
        deadline = time.monotonic() + 60
        if how == "delay":
            time.sleep(when)
        else:
            while process.poll() is None and time.monotonic() < deadline:
                if watcher.total and watcher.done >= when * watcher.total:
                    break
                time.sleep(0.002)
        seen = watcher.done
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        watcher.join()
        state = snapshot(db)
        assert state in (old_state, new_state), f"mixed state after kill {how}={when}"
        integrity = sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()
        assert integrity == ("ok",)
        killed = process.returncode == -signal.SIGKILL
        outcomes.append((how, when, killed, seen, "old" if state == old_state else "new"))

    # The test proves something only if some kills landed after rows had been
    # updated but before the COMMIT: the process died with progress shown and
    # the database came back in its old state.
    mid_run = [o for o in outcomes if o[2] and o[3] > 0 and o[4] == "old"]
    assert mid_run, outcomes


# --------------------------------------------------------------------- a live writer

WRITER = """
import asyncio, sys
from agents import SQLiteSession

async def main() -> None:
    session = SQLiteSession("live", sys.argv[1])
    for n in range(int(sys.argv[2])):
        await session.add_items([{"role": "user", "content": f"live {n}"}])
        await asyncio.sleep(0.002)
    session.close()

asyncio.run(main())
"""


def test_a_live_sqlitesession_writer_loses_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    _crash_db(path)
    writes = 300
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(writes)],
                              env=cli_env(), stderr=subprocess.PIPE)
    result = run_cli(str(path), "--no-backup", "--batch-size", "200", "--json")
    _, errors = writer.communicate(timeout=120)
    assert writer.returncode == 0, errors
    assert json.loads(result.stdout)["migrated"] > 0
    live = get_items(path, "live")
    assert live == [{"role": "user", "content": f"live {n}"} for n in range(writes)]
