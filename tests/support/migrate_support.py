"""Shared pieces of the migration tests: legacy summaries, session DBs, the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, default_codec

ROOT = Path(__file__).resolve().parents[2]
# Server-store runs record their backup files in a local state directory: the
# tests' runs (in this process and in the ones it starts) keep theirs in one of
# their own, never in the user's.
os.environ.setdefault("HANDOFF_CODEC_STATE_DIR", tempfile.mkdtemp(prefix="handoff-codec-state-"))
FIXTURES = ROOT / "tests" / "fixtures" / "legacy_summaries.jsonl"

Item = dict[str, Any]


def envelope(*records: str, preamble: str = DEFAULT_PREAMBLE) -> str:
    return "\n".join((preamble, DEFAULT_START, *records, DEFAULT_END))


# Hand-written legacy summaries: an old-style bare role, 0.6-0.17.0 continuation
# lines, 0.6-0.17.0 typed records (a call and the output that answers it: a call no
# output answers, after a turn, is read as that turn's text), the short legacy preamble.
CRAFTED: list[Item] = [
    {"role": "assistant", "content": envelope("1. user: hi", "2. assistant", "3. user: ok")},
    {"role": "assistant", "content": envelope(
        "1. user: line one", "line two", "", "line four", "2. assistant: done")},
    {"role": "assistant", "content": envelope(
        "1. user: weather?",
        '2. function_call: {"call_id": "c1", "name": "weather", "arguments": "{}"}',
        '3. function_call_output: {"call_id": "c1", "output": "sunny"}',
        "4. assistant: sunny")},
    {"role": "assistant", "id": "msg_7", "type": "message",
     "content": envelope("1. user (alice): hello", "2. assistant",
                         preamble=handoff_codec.format.LEGACY_PREAMBLE)},
]

# Written by openai-agents >= 0.20 (JSON record keys in insertion order): the
# current format, read even by the strict reader, but not canonical.
NONCANONICAL_CURRENT: Item = {"role": "assistant", "content": envelope(
    '1. {"role": "user", "content": "two\\nlines"}', "2. assistant: ")}

# Inside the envelope but not a record: the reader refuses it.
UNREADABLE: Item = {"role": "assistant",
                    "content": envelope("Here is some prose, not a record.")}

PLAIN: list[Item] = [
    {"role": "user", "content": "What's the weather in Oslo?"},
    {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Oslo"}'},
    {"type": "function_call_output", "call_id": "c1", "output": "sunny, 18°C"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "Sunny — 18 °C."}]},
    {"role": "user", "content": "quoting a summary: " + envelope("1. user", "2. assistant: x")},
]


def require_legacy_reader() -> None:
    """Skip unless the lenient reader reads the hand-written legacy summaries."""
    for item in CRAFTED:
        try:
            handoff_codec.decode(item["content"])
        except DecodeError as exc:
            pytest.skip(f"the lenient legacy reader does not read legacy text yet: {exc}")


def fixture_rows() -> list[dict[str, Any]]:
    """Rows of tests/fixtures/legacy_summaries.jsonl (skip when it is missing)."""
    if not FIXTURES.exists():
        pytest.skip(f"{FIXTURES.relative_to(ROOT)} is missing (legacy fixtures not generated)")
    rows = [json.loads(line) for line in FIXTURES.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    if not rows:
        pytest.skip("legacy fixture file is empty")
    return rows


def fixture_summaries(*, readable_only: bool = True) -> list[tuple[str, str, Item]]:
    """(version, case, summary) for every fixture summary message (new dicts each call).

    With ``readable_only``, skip the test unless the reader reads at least
    some legacy (pre-0.20) summaries, and keep only those it reads, with no
    ``ambiguous`` split (which the migration leaves untouched by default:
    tests/migrate/test_migrate_ambiguous.py).
    """
    data = FIXTURES.read_bytes() if FIXTURES.exists() else b""
    if not data.strip():
        fixture_rows()  # skips: the file is missing or empty
    found = []
    legacy_read = 0
    for version, case, text, readable in _fixture_summaries(data):
        if readable_only:
            if not readable:
                continue
            legacy_read += tuple(int(part) for part in version.split(".")[:2]) < (0, 20)
        found.append((version, case, json.loads(text)))
    if readable_only and not legacy_read:
        pytest.skip("the lenient reader reads none of the legacy fixture summaries yet")
    return found


@functools.cache
def _fixture_summaries(data: bytes) -> tuple[tuple[str, str, str, bool], ...]:
    """(version, case, summary JSON, read by the reader unambiguously) for the file's bytes.

    Reading every fixture summary takes about a second; the answer depends only
    on the file's bytes (and this process's reader), so it is worked out once.
    """
    found = []
    for line in data.decode("utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        summary = row.get("summary")
        if not isinstance(summary, dict) or not default_codec.is_summary(summary):
            continue
        try:
            decoded = handoff_codec.decode(summary["content"])
        except DecodeError:
            readable = False
        else:
            readable = all(r.kind != "ambiguous" for r in decoded.recoveries)
        found.append((row["version"], f"{row['case']}/{row['kind']}", json.dumps(summary),
                      readable))
    return tuple(found)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_session_db(path: Path, sessions: Mapping[str, Iterable[Item]], *,
                    sessions_table: str = "agent_sessions",
                    messages_table: str = "agent_messages") -> None:
    """A session database written by the real ``agents.SQLiteSession``."""
    from agents import SQLiteSession

    async def fill() -> None:
        for session_id, items in sessions.items():
            session = SQLiteSession(session_id, path, sessions_table=sessions_table,
                                    messages_table=messages_table)
            try:
                await session.add_items(list(items))  # type: ignore[arg-type]
            finally:
                session.close()

    asyncio.run(fill())


def insert_raw(path: Path, session_id: str, message_data: Any,
               messages_table: str = "agent_messages") -> int:
    """Insert a row bypassing the SDK (for corrupt rows); return its id."""
    with sqlite3.connect(path) as conn:
        cursor = conn.execute(
            f"INSERT INTO {messages_table} (session_id, message_data) VALUES (?, ?)",
            (session_id, message_data))
        row_id = cursor.lastrowid
    conn.close()
    assert row_id is not None
    return row_id


def snapshot(path: Path, messages_table: str = "agent_messages",
             sessions_table: str = "agent_sessions") -> tuple[list[Any], list[Any]]:
    """Every row of both tables, exactly as stored (types included)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        sessions = conn.execute(
            f"SELECT session_id, created_at, updated_at FROM {sessions_table} "
            "ORDER BY session_id").fetchall()
        messages = conn.execute(
            f"SELECT id, session_id, message_data, typeof(message_data), created_at "
            f"FROM {messages_table} ORDER BY id").fetchall()
    finally:
        conn.close()
    return sessions, messages


def get_items(path: Path, session_id: str, **tables: Any) -> list[Item]:
    """A session's items, read back through the real ``SQLiteSession.get_items``."""
    from agents import SQLiteSession

    async def read() -> list[Item]:
        session = SQLiteSession(session_id, path, **tables)
        try:
            return list(await session.get_items())  # type: ignore[arg-type]
        finally:
            session.close()

    return asyncio.run(read())


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "handoff_codec.cli", "migrate", *args]


def run_cli(*args: str, check_code: int | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cli_command(*args), capture_output=True, text=True,
                            errors="surrogateescape", env=cli_env(), cwd=ROOT, timeout=timeout)
    if check_code is not None:
        assert result.returncode == check_code, (result.returncode, result.stdout,
                                                 result.stderr)
    return result


def run_cli_here(*args: str, check_code: int | None = None) -> subprocess.CompletedProcess[str]:
    """``handoff-codec migrate ARGS`` run by ``main()`` in this process, as ``run_cli`` reports it.

    The same argument parsing, store code and output as the command, without
    an interpreter start-up and its imports (seconds per run): for runs whose
    own process is not what a test is about (killed, concurrent, locked out).
    """
    from handoff_codec.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["migrate", *args])
    result = subprocess.CompletedProcess(cli_command(*args), code, out.getvalue(),
                                         err.getvalue())
    if check_code is not None:
        assert result.returncode == check_code, (result.returncode, result.stdout,
                                                 result.stderr)
    return result


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith("handoff-codec: error: ")
    return lines[0]


def require_root() -> None:
    """Skip unless this process may give files to another user (CI runs as root)."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the test gives the store to another uid and back")


OTHER_UID = 65534  # nobody


def files_beside(path: Path) -> list[str]:
    """Every name in the store's folder (backups, temporary and journal files show up)."""
    return sorted(p.name for p in path.parent.iterdir())
