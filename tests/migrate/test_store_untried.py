"""Cases an operator meets and no other test tried: a key rotated part-way, ids out of
insertion order, odd cells in a ``sqlite:///`` store, 10 MB rows, kills of file runs."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.migrate.test_store_encrypted import KEY_ENV, _fill, _read
from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    cli_command,
    cli_env,
    envelope,
    make_session_db,
    require_legacy_reader,
    run_cli_here,
    sha256,
    snapshot,
)
from tests.support.server_stores import SqlStore, expected_items, run_migrate

LEGACY = CRAFTED[0]


def test_a_key_rotated_part_way_migrates_each_keys_rows_with_that_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions written under an old key and a new one: a run with either key migrates the
    rows it can read, says which it cannot, and both backups restore every byte."""
    require_legacy_reader()
    from cryptography.fernet import Fernet

    url = f"sqlite:///{tmp_path / 'enc.db'}"
    store = SqlStore(url)
    old_key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    _fill(store, old_key, {"early": [PLAIN[0], LEGACY]})
    _fill(store, new_key, {"late": [LEGACY, PLAIN[1]]})
    before = store.rows()
    args = ("--encryption-key-env", KEY_ENV)
    monkeypatch.setenv(KEY_ENV, new_key)
    first = run_cli_here(url, *args, "--backup-file", str(tmp_path / "new.jsonl"), "--json",
                         check_code=1)
    report = json.loads(first.stdout)
    assert report["migrated"] == 1 and report["invalid_rows"] == 2
    assert {row["reason"] for row in report["untouched_rows"]} == {
        "cannot decrypt: wrong key or corrupt token"}
    assert "wrong key" in first.stderr
    monkeypatch.setenv(KEY_ENV, old_key)
    second = run_migrate(url, *args, "--backup-file", str(tmp_path / "old.jsonl"),
                         check_code=1)
    assert second["migrated"] == 1 and second["invalid_rows"] == 2
    assert _read(store, old_key, ["early"]) == [expected_items([PLAIN[0], LEGACY])]
    assert _read(store, new_key, ["late"]) == [expected_items([LEGACY, PLAIN[1]])]
    for backup in ("old.jsonl", "new.jsonl"):
        run_migrate(url, "--restore", str(tmp_path / backup), check_code=0)
    assert store.rows() == before


def test_ids_out_of_insertion_order_are_all_migrated_and_restored(tmp_path: Path) -> None:
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    store.fill({"s": [PLAIN[0]]})
    for row_id in (900, 5, 400, 2, 7000, 3):
        store.execute("INSERT INTO agent_messages (id, session_id, message_data) "
                      "VALUES (:i, 's', :v)", {"i": row_id, "v": json.dumps(CRAFTED[row_id % 4])})
    before = store.rows()
    backup = tmp_path / "b.jsonl"
    real = run_migrate(url, "--batch-size", "2", "--backup-file", str(backup), check_code=0)
    assert real["migrated"] == 6 and real["rows_scanned"] == 7
    run_migrate(url, "--restore", str(backup), check_code=0)
    assert store.rows() == before


def _raw_rows(path: Path) -> list[tuple[int, object, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT id, message_data, typeof(message_data) FROM agent_messages "
                            "ORDER BY id").fetchall()
    finally:
        conn.close()


def test_blobs_nul_and_invalid_utf8_in_a_sqlite_url_store(tmp_path: Path) -> None:
    """A legacy summary stored as a BLOB is rewritten as a BLOB and restored as one; a row
    holding NUL characters is migrated; invalid UTF-8 is reported and left alone."""
    require_legacy_reader()
    db = tmp_path / "s.db"
    url = f"sqlite:///{db}"
    store = SqlStore(url)
    store.fill({"s": [PLAIN[0]]})
    nul = dict(LEGACY, note="a\x00b")
    cells: list[object] = [json.dumps(CRAFTED[1]).encode(), json.dumps(nul),
                           b'{"role": "user", "content": "\xff\xfe"}',
                           '{"role": "user", "content": "raw \x00 NUL"}']
    conn = sqlite3.connect(db)
    with conn:
        for cell in cells:
            conn.execute("INSERT INTO agent_messages (session_id, message_data) VALUES "
                         "('s', ?)", (cell,))
    conn.close()
    before = _raw_rows(db)
    backup = tmp_path / "b.jsonl"
    real = run_migrate(url, "--backup-file", str(backup), check_code=1)
    assert real["migrated"] == 2 and real["changed_under_us"] == 0
    assert real["untouched"] == 1  # invalid UTF-8: reported (a raw NUL, in no summary, kept)
    after = _raw_rows(db)
    assert [kind for _, _, kind in after] == ["text", "blob", "text", "blob", "text"]
    assert after[1] != before[1] and after[2] != before[2] and after[3:] == before[3:]
    restored = run_migrate(url, "--restore", str(backup), check_code=0)
    assert restored["restored"] == 2 and _raw_rows(db) == before


def _big_legacy(megabytes: int) -> dict[str, str]:
    words = " ".join(f"w{i}" for i in range(megabytes * 260_000))
    return {"role": "assistant", "content": envelope(f"1. user: {words}", "2. assistant")}


def test_10_mb_rows_in_a_sqlite_file_and_a_jsonl_file(tmp_path: Path) -> None:
    require_legacy_reader()
    big = _big_legacy(10)
    db = tmp_path / "big.db"
    make_session_db(db, {"s": [PLAIN[0], big, PLAIN[1]]})
    jsonl = tmp_path / "big.jsonl"
    jsonl.write_text("".join(json.dumps(item) + "\n" for item in (PLAIN[0], big, PLAIN[1])))
    for path, content in ((db, snapshot), (jsonl, sha256)):
        original = content(path)
        report = run_migrate(str(path), check_code=0)
        assert report["migrated"] == 1 and content(path) != original
        assert run_migrate(str(path), check_code=0)["migrated"] == 0
        run_migrate(str(path), "--restore", report["backups"][0], check_code=0)
        assert content(path) == original


def _kill_file_run(path: Path, rng: random.Random) -> None:
    proc = subprocess.Popen(cli_command(str(path), "--batch-size", "5"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=cli_env())
    time.sleep(rng.uniform(0.8, 2.5))
    proc.send_signal(signal.SIGKILL)
    proc.wait()


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_a_killed_file_run_is_run_again_and_its_backup_restores_every_byte(
        kind: str, tmp_path: Path) -> None:
    """A file store is migrated whole: after a SIGKILL the file is old or new, a second run
    finishes the job (a file run has no --resume: it starts over), and restoring the
    backups the runs left gives back the original, byte for byte."""
    require_legacy_reader()
    items = [item for n in range(300) for item in (PLAIN[n % len(PLAIN)], CRAFTED[n % 4])]
    path = tmp_path / ("s.db" if kind == "sqlite" else "s.jsonl")
    if kind == "sqlite":
        make_session_db(path, {f"s{n}": items[n::10] for n in range(10)})
    else:
        path.write_text("".join(json.dumps(item) + "\n" for item in items))
    content = snapshot if kind == "sqlite" else sha256
    original = content(path)
    rng = random.Random(11)
    for _ in range(2):
        _kill_file_run(path, rng)
    run_migrate(str(path), check_code=0)
    baks = sorted(str(p) for p in path.parent.iterdir() if ".bak-" in p.name)
    assert baks
    run_migrate(str(path), *(word for bak in baks for word in ("--restore", bak)),
                check_code=0)
    assert content(path) == original
