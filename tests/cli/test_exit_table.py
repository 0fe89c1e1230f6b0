"""The exit-code table that ``handoff-codec --help`` prints, walked row by row.

The table is read from the help text (as a user reads it) and must be the one
in docs/cli.md. Every row has commands here that give its code; each asserts
the code, the one error line on stderr (after argparse's usage line for a
usage error, but under ``--json``), and under ``--json`` the error document on stdout.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import handoff_codec
from handoff_codec.cli import main
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
ITEMS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
LOSSY = "\n".join((DEFAULT_PREAMBLE, DEFAULT_START, '1. {"content": "hi", "role": "user"}',
                   "2. what is this",
                   "3. assistant: ok", DEFAULT_END))
UNREADABLE = {"role": "assistant", "content": "\n".join(
    (DEFAULT_PREAMBLE, DEFAULT_START, "Here is some prose, not a record.", DEFAULT_END))}


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def help_table() -> list[tuple[int, str]]:
    """The rows of the exit-code table in ``handoff-codec --help``, each joined on one line."""
    out = subprocess.run([sys.executable, "-m", "handoff_codec", "--help"], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "COLUMNS": "100"}).stdout
    rows: list[tuple[int, str]] = []
    for line in out.split("exit codes:\n", 1)[1].splitlines():
        match = re.match(r"  (\d+) +(.*)", line)
        if match:
            rows.append((int(match.group(1)), match.group(2)))
        elif line.startswith("       ") and rows:
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {line.strip()}")
    return rows


def doc_table() -> list[tuple[int, str]]:
    block = DOC.read_text(encoding="utf-8").split("<!-- BEGIN EXIT CODES -->", 1)[1]
    lines = block.split("<!-- END EXIT CODES -->", 1)[0].strip().splitlines()
    assert lines[:2] == ["| Code | Meaning |", "|---|---|"]
    return [(int(code), meaning) for code, meaning in
            (line.strip("| ").split(" | ", 1) for line in lines[2:])]


def label(meaning: str) -> str:
    """A row's name: its words before the first colon or semicolon."""
    return re.split(r"[:;]", meaning, maxsplit=1)[0]


def test_the_help_table_is_the_documented_one() -> None:
    rows = help_table()
    assert rows == doc_table()
    assert [code for code, _ in rows] == [0, 1, 1, 2, 3, 4, 130, 143]


@dataclass
class Case:
    """A command line (``{d}`` is the test's folder) and what it must give."""

    argv: list[str]
    error: str | None = None  # the stderr line after "handoff-codec: error: " (a regex)
    usage: bool = False  # a usage line comes before the error line
    json_flag: bool = True  # the command takes --json


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "items.json").write_text(json.dumps(ITEMS))
    (tmp_path / "dup.json").write_text('[{"role": "user", "role": "system", "content": "x"}]')
    (tmp_path / "summary.txt").write_text(handoff_codec.dumps(ITEMS))
    (tmp_path / "lossy.txt").write_text(LOSSY)
    (tmp_path / "empty.json").write_text(json.dumps([{"role": "user", "content": ""}]))
    (tmp_path / "untouched.jsonl").write_text(json.dumps(UNREADABLE) + "\n")
    (tmp_path / "README.md").write_text("# A project\n\nSome text.\n")
    (tmp_path / "exists.jsonl").write_text("kept\n")
    shutil.copy(ROOT / "examples" / "sessions.db", tmp_path / "sessions.db")
    (tmp_path / "a-dir").mkdir()
    return tmp_path


SQLITE = "sqlite:///{d}/sessions.db"
CASES: dict[str, list[Case]] = {
    "ok": [
        Case(["encode", "items.json"]),
        Case(["decode", "summary.txt"]),
        Case(["validate", "items.json", "--target", "anthropic"]),
        Case(["replay", "items.json", "--target", "anthropic"]),
        Case(["migrate", "sessions.db", "--dry-run"]),
    ],
    "invalid input": [
        Case(["decode", "items.json"], r"items\.json:1:1: unexpected .*; expected the preamble "
                                       r"line or the short legacy preamble; this is JSON items, "
                                       r"not a summary: `handoff-codec encode` writes their "
                                       r"summary"),
        Case(["encode", "dup.json"], r'dup\.json:1:19: invalid JSON: the key "role" appears '
                                     r"twice in one object \(which value is meant\?\)"),
        Case(["replay", "summary.txt", "--target", "anthropic"],
             r"summary\.txt:1:1: invalid JSON: Expecting value; this is a summary's text, not "
             r"items: read it into items first with `handoff-codec decode summary\.txt \| "
             r"handoff-codec replay --target anthropic`"),
    ],
    "problems found": [
        Case(["validate", "empty.json", "--target", "anthropic"]),
        Case(["migrate", "untouched.jsonl", "--dry-run"]),
    ],
    "usage, refused before anything is touched": [
        Case(["decode", "--no-such-flag"], "decode: unrecognized arguments: --no-such-flag",
             usage=True),
        Case(["migrate", "sessions.db", "--dry-r"], "migrate: unrecognized arguments: --dry-r",
             usage=True),
        Case(["bogus"], r"argument COMMAND: invalid choice: 'bogus' \(choose from .*\)",
             usage=True, json_flag=False),
        Case(["decode", "no-such.txt"], r"no-such\.txt: no such file"),
        Case(["migrate", "a-dir"], "a-dir: is a directory"),
        Case(["migrate", "README.md"], r"README\.md: a text file, not JSON Lines \(line 1 is "
                                       r"not JSON\): .*"),
        Case(["migrate", "sessions.db", "--resume"], r"sessions\.db: --resume: only for "
                                                      r"server stores .*"),
        Case(["migrate", SQLITE + "?foo=1"], r"sqlite:///.*/sessions\.db\?foo=1: unknown URL "
                                            r"option 'foo': the pysqlite driver takes no such "
                                            r"option"),
        Case(["migrate", "ftp://host/x"], r"ftp://host/x: unsupported store URL scheme 'ftp' .*"),
        Case(["migrate", SQLITE, "--backup-file", "exists.jsonl"],
             r".*/exists\.jsonl: the backup file exists; name another with --backup-file"),
    ],
    "lossy read": [
        Case(["decode", "lossy.txt"]),
    ],
    "store unreachable": [
        Case(["migrate", "postgresql://postgres@127.0.0.1:1/test", "--dry-run"],
             r"postgresql(\+psycopg)?://postgres@127\.0\.0\.1:1/test: "
             r".*(refused|could not connect).*"),
    ],
}


def _expect(case: Case, folder: Path, code: int, as_json: bool) -> None:
    argv = [word.replace("{d}", str(folder)) for word in case.argv]
    if as_json:
        argv.append("--json")
    before = sorted(p.name for p in folder.iterdir())
    got, out, err = _run(argv)
    assert got == code, (argv, out, err)
    lines = err.splitlines()
    if case.error is None:
        assert not any(line.startswith("handoff-codec: error") for line in lines), err
        if as_json:
            report = json.loads(out)
            if "ok" in report:  # decode, validate, migrate: the report's exit code
                assert (report["ok"], report["exit"]) == (code == 0, code)
        return
    *head, line = lines
    assert re.fullmatch(f"handoff-codec: error: {case.error}", line), line
    assert not line.removeprefix("handoff-codec: error: ").startswith("handoff-codec")
    if case.usage and not as_json:  # (under --json the error line alone)
        assert head and head[0].startswith("usage: handoff-codec"), err
    else:
        assert not head, err
    if as_json:
        assert json.loads(out) == {"error": {"exit": code,
                                             "message": line.removeprefix("handoff-codec: "
                                                                          "error: ")}}
    else:
        assert out == ""
    if code == 2:  # refused before anything was touched: no new file, no state
        assert sorted(p.name for p in folder.iterdir()) == before


def test_every_row_of_the_table_is_walked() -> None:
    """Rows 0 to 5 by the commands of CASES; Ctrl-C by test_ctrl_c_row, SIGTERM by
    tests/migrate/test_stop_messages.py."""
    labels = [label(meaning) for _, meaning in help_table()]
    assert labels[:-2] == list(CASES)
    assert labels[-2:] == ["interrupted (Ctrl-C)", "terminated (SIGTERM)"]


@pytest.mark.parametrize("row", range(len(CASES)))
def test_every_row_of_the_table_has_commands_that_give_its_code(
        row: int, folder: Path) -> None:
    code, meaning = help_table()[row]
    cases = CASES[label(meaning)]
    for case in cases:
        _expect(case, folder, code, as_json=False)
        if case.json_flag:
            _expect(case, folder, code, as_json=True)


def _wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)


def _checkpointed(db: Path) -> Callable[[], bool]:
    def done() -> bool:
        try:
            with contextlib.closing(sqlite3.connect(db, timeout=1)) as conn:
                return bool(conn.execute(
                    "SELECT count(*) FROM handoff_codec_checkpoints").fetchone()[0])
        except sqlite3.OperationalError:  # no table yet, or locked for a moment
            return False
    return done


def interrupt_migration(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``migrate sqlite:///...`` stopped by SIGINT once it has committed a batch."""
    db = folder / "sessions.db"
    env = {**os.environ, "HANDOFF_CODEC_STATE_DIR": str(folder / "state")}
    argv = [sys.executable, "-m", "handoff_codec", "migrate", f"sqlite:///{db}",
            "--batch-size", "1", "--pause", "600", "--backup-file", str(folder / "b.jsonl"),
            *extra]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=folder)
    try:
        _wait_for(_checkpointed(db), proc)  # the first batch is in; the run sleeps 600 s
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_ctrl_c_row(folder: Path, as_json: bool) -> None:
    code, meaning = help_table()[-2]
    assert (code, label(meaning)) == (130, "interrupted (Ctrl-C)")
    result = interrupt_migration(folder, *(["--json"] if as_json else []))
    assert result.returncode == 130
    (line,) = result.stderr.splitlines()
    url = f"sqlite:///{folder / 'sessions.db'}"
    backup = folder / "b.jsonl"
    assert line.startswith("handoff-codec: error: interrupted; the run stopped part-way: it "
                           "had "), line
    assert (f"; to go on: handoff-codec migrate {url} --batch-size 1 --pause 600.0 "
            f"--backup-file {backup} --resume") in line, line
    if as_json:
        assert json.loads(result.stdout) == {"error": {
            "exit": 130, "message": line.removeprefix("handoff-codec: error: ")}}
    else:
        assert result.stdout == ""
