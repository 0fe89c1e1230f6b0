"""``migrate`` says what happened: no silent success, no secret printed, one report shape."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.migrate_support import (
    CRAFTED,
    PLAIN,
    make_session_db,
    one_line_error,
    require_legacy_reader,
    run_cli,
    run_cli_here,
)
from tests.support.server_stores import RedisStore, SqlStore, mixed_sessions, run_migrate
from tests.support.services import postgres_database, redis_prefix

SECRET = "s3cr3t-Pa55"


def test_a_dry_run_on_a_missing_sqlite_url_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.db"
    result = run_cli_here(f"sqlite:///{missing}", "--dry-run", check_code=2)
    assert one_line_error(result).endswith(f"{missing}: no such file")
    assert not missing.exists() and list(tmp_path.iterdir()) == []


def test_json_errors_for_urls_are_one_json_document(tmp_path: Path) -> None:
    result = run_cli_here(f"sqlite:///{tmp_path / 'nosuch.db'}", "--json", check_code=2)
    error = json.loads(result.stdout)["error"]
    assert error["exit"] == 2 and "no such file" in error["message"]
    one_line_error(result)


def test_an_unsupported_scheme_is_reported_as_such() -> None:
    result = run_cli_here("mongodb://x/y", "--json", check_code=2)
    message = json.loads(result.stdout)["error"]["message"]
    assert message.startswith("mongodb://x/y: unsupported store URL scheme 'mongodb'")
    assert "no such file" not in message


def test_an_unreachable_server_has_its_own_exit_code() -> None:
    for url in ("postgresql://postgres@127.0.0.1:1/x", "redis://127.0.0.1:1/0"):
        result = run_cli_here(url, "--dry-run", "--json", check_code=4)
        assert json.loads(result.stdout)["error"]["exit"] == 4
        one_line_error(result)
    bad_flag = run_cli_here("postgresql://postgres@127.0.0.1:1/x", "--shard", "9/2")
    assert bad_flag.returncode == 2


def test_a_missing_driver_names_what_to_install() -> None:
    pytest.importorskip("sqlalchemy")
    try:
        import MySQLdb  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("MySQLdb is installed here")
    result = run_cli_here("mysql+mysqldb://root@127.0.0.1/x", "--dry-run", check_code=2)
    line = one_line_error(result)
    assert "MySQLdb" in line and "pip install 'handoff-codec[mysql]'" in line


def test_credentials_in_a_url_are_never_printed_or_stored(tmp_path: Path) -> None:
    """PostgreSQL trusts local connections here, so the URL's passwords are not checked:
    the run succeeds and its report, backup header and checkpoint must not hold them."""
    require_legacy_reader()
    with postgres_database() as url:
        store = SqlStore(url)
        store.fill({"s": [CRAFTED[0], PLAIN[0]]})
        secret_url = url.replace("postgres@", f"postgres:{SECRET}@") + f"?password={SECRET}"
        backup = tmp_path / "b.jsonl"
        for args in (("--dry-run",), ("--backup-file", str(backup)), ("--dry-run", "--json")):
            result = run_cli_here(secret_url, *args)
            assert SECRET not in result.stdout + result.stderr, args
            assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert "password=***" in report["path"] and ":***@" in report["path"]
        assert SECRET not in backup.read_text() and "password=***" in backup.read_text()
        import sqlalchemy as sa

        engine = sa.create_engine(store.sync_url)
        try:
            with engine.connect() as conn:
                states = conn.execute(sa.text(
                    "SELECT state FROM handoff_codec_checkpoints")).scalars().all()
        finally:
            engine.dispose()
        assert states and all(SECRET not in state for state in states)
    for url in (f"redis://:{SECRET}@127.0.0.1:1/0", f"redis://127.0.0.1:1/0?password={SECRET}",
                f"postgresql://u@127.0.0.1:1/db?sslpassword={SECRET}&password={SECRET}"):
        result = run_cli_here(url, "--json")
        assert result.returncode == 4 and SECRET not in result.stdout + result.stderr, url


def test_resume_after_restore_runs_again_and_never_reports_old_figures(tmp_path: Path) -> None:
    require_legacy_reader()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = SqlStore(url)
    store.fill({"s": [CRAFTED[0], CRAFTED[1], CRAFTED[2], PLAIN[0]]})
    before = store.rows()
    backup = tmp_path / "b.jsonl"
    assert run_migrate(url, "--backup-file", str(backup))["migrated"] == 3
    run_migrate(url, "--restore", str(backup), check_code=0)
    assert store.rows() == before
    again = run_migrate(url, "--resume", "--backup-file", str(tmp_path / "c.jsonl"))
    assert again["migrated"] == 3 and again["already_current"] == 0
    assert store.rows() != before


def test_forget_clears_the_migration_state(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        RedisStore(url, prefix).fill({"s": [CRAFTED[0], PLAIN[0]]})
        options = ("--key-prefix", prefix)
        run_migrate(url, "--backup-file", str(tmp_path / "b.jsonl"), *options)
        import redis

        client = redis.Redis.from_url(url)
        checkpoint = f"handoff-codec:migrate:{prefix}:checkpoint:0/1"
        assert client.exists(checkpoint)
        forgot = run_migrate(url, "--forget", *options, check_code=0)
        assert forgot["checkpoints"] == 1 and not client.exists(checkpoint)
        client.close()
        assert RedisStore(url, prefix).rows()  # the rows are as they were


def test_a_key_prefix_or_table_that_matches_nothing_is_warned_about(tmp_path: Path) -> None:
    with redis_prefix() as (url, prefix):
        RedisStore(url, prefix).fill({"s": [PLAIN[0]]})
        result = run_cli_here(url, "--key-prefix", prefix + "-typo", "--dry-run", "--json",
                              check_code=0)
        [warning] = json.loads(result.stdout)["warnings"]
        assert prefix + "-typo" in warning and "warning:" in result.stderr
        found = run_cli_here(url, "--key-prefix", prefix, "--dry-run", "--json", check_code=0)
        assert json.loads(found.stdout)["warnings"] == [] and "warning" not in found.stderr
    url = f"sqlite:///{tmp_path / 's.db'}"
    SqlStore(url).get_items("s")  # the SDK creates its (empty) tables
    empty = run_cli_here(url, "--dry-run", check_code=0)
    assert "table 'agent_messages'" in empty.stderr


def test_server_and_file_reports_have_one_shape(tmp_path: Path) -> None:
    require_legacy_reader()
    db = tmp_path / "s.db"
    make_session_db(db, mixed_sessions(2))
    file_text = run_cli(str(db), "--dry-run").stdout
    url_text = run_cli(f"sqlite:///{db}", "--dry-run").stdout
    labels = [line.split(":")[0] for line in file_text.splitlines()[1:]]
    for label in ("  sessions", "  would migrate", "  note", "next"):
        assert label in labels, label
        assert any(line.startswith(label + ":") for line in url_text.splitlines()), label
    assert f"next: handoff-codec migrate sqlite:///{db}\n" in url_text
    by_format = [line for line in url_text.splitlines() if "would migrate" in line]
    assert by_format and "written by openai-agents 0.6 to 0.17.0: " in by_format[0]


KEY_ENV = "HANDOFF_CODEC_TEST_FILE_KEY"


def _encrypted_sqlite_file(db: Path, key: str, items: list[Any]) -> None:
    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession

    async def fill() -> None:
        inner = SQLiteSession("s", db)
        try:
            await EncryptedSession("s", inner, key, ttl=3600).add_items(items)
        finally:
            inner.close()

    asyncio.run(fill())


def test_an_encrypted_store_given_as_a_file_path_is_migrated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_legacy_reader()
    pytest.importorskip("cryptography")
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()
    db = tmp_path / "enc.db"
    _encrypted_sqlite_file(db, key, [CRAFTED[0], PLAIN[0], CRAFTED[1]])
    before = SqlStore(f"sqlite:///{db}").rows()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))

    monkeypatch.setenv(KEY_ENV, Fernet.generate_key().decode())  # the wrong key
    wrong = run_migrate(str(db), "--encryption-key-env", KEY_ENV, "--backup-file",
                        str(tmp_path / "wrong.jsonl"), check_code=1)
    assert wrong["migrated"] == 0 and wrong["invalid_rows"] == 3
    assert {row["reason"] for row in wrong["untouched_rows"]} == {
        "cannot decrypt: wrong key or corrupt token"}
    assert not (tmp_path / "wrong.jsonl").exists()
    assert SqlStore(f"sqlite:///{db}").rows() == before

    monkeypatch.setenv(KEY_ENV, key)
    right = run_migrate(str(db), "--encryption-key-env", KEY_ENV, "--resume", "--backup-file",
                        str(tmp_path / "right.jsonl"))
    assert right["migrated"] == 2 and right["untouched"] == 0  # the wrong run recorded nothing
    assert SqlStore(f"sqlite:///{db}").rows() != before
    monkeypatch.delenv(KEY_ENV)
    unset = run_cli_here(str(db), "--encryption-key-env", KEY_ENV, check_code=2)
    assert KEY_ENV in unset.stderr
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text(json.dumps(PLAIN[0]) + "\n")
    assert "JSONL" in run_cli_here(str(jsonl), "--encryption-key-env", KEY_ENV,
                                   check_code=2).stderr


def test_the_state_directory_must_be_private(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    require_legacy_reader()
    state = tmp_path / "state"
    (state / "migrate").mkdir(parents=True)
    os.chmod(state / "migrate", 0o777)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(state))
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 's.db'}"
    SqlStore(url).fill({"s": [CRAFTED[0]]})
    for args in (("--resume",), ()):
        result = run_cli_here(url, *args, check_code=2)
        assert "not a private directory" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db", "state"]  # no stray backup
