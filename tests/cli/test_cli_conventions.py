"""The CLI's conventions, one test per case a user met: usage errors are exit 2 and touch
nothing, the friction of a first run, one report shape, and duplicate JSON keys."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec.cli import main
from handoff_codec.migrate.stores import registered_schemes

from .test_exit_table import LOSSY, ROOT, UNREADABLE, interrupt_migration

ITEMS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
SESSIONS = ROOT / "examples" / "sessions.db"
COMMANDS = ("encode", "decode", "validate", "migrate", "replay")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # --help and --version exit as argparse has them
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own (backups land here), with a private state dir."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
    shutil.copy(SESSIONS, work / "sessions.db")
    return work


def untouched(folder: Path, tmp_path: Path) -> None:
    """Nothing was written: the store as it came, no other file, no state directory."""
    assert sorted(p.name for p in folder.iterdir()) == ["sessions.db"]
    assert (folder / "sessions.db").read_bytes() == SESSIONS.read_bytes()
    assert not (tmp_path / "state").exists()


# ---------------------------------------------------------------- usage errors
def _long_flags(command: str) -> list[str]:
    code, out, _ = run(command, "--help")
    assert code == 0
    return sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out)) - {"--help"})


@pytest.mark.parametrize("command", COMMANDS)
def test_no_flag_of_any_subcommand_is_taken_abbreviated(command: str, here: Path,
                                                        tmp_path: Path) -> None:
    flags = _long_flags(command)
    assert flags
    required = {"replay": ["--target", "anthropic"], "migrate": ["sessions.db"]}.get(command, [])
    for flag in flags:
        cut = flag[:-1]
        if cut in flags:
            continue
        code, out, err = run(command, *required, cut)
        assert code == 2, (flag, out, err)
        assert err.splitlines()[-1] == (
            f"handoff-codec: error: {command}: unrecognized arguments: {cut}"), err
    untouched(here, tmp_path)


def test_top_level_flags_are_not_taken_abbreviated() -> None:
    code, out, err = run("--versio")
    assert code == 2 and out == "" and "handoff-codec" not in out
    assert err.splitlines()[-1].startswith("handoff-codec: error: ")


@pytest.mark.parametrize("argv", [["--resum"], ["--no-b"], ["--dry-r"]])
def test_an_abbreviated_migrate_flag_runs_nothing(argv: list[str], here: Path,
                                                  tmp_path: Path) -> None:
    code, _, err = run("migrate", "sessions.db", *argv)
    assert code == 2, err
    untouched(here, tmp_path)


@pytest.mark.parametrize("index", ["01", " 1", "1 ", "+1", "1_0", "\uff11", "x", "", "-1", "2"])
def test_a_job_completion_index_that_is_not_canonical_is_refused_before_anything(
        index: str, here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOB_COMPLETION_INDEX", index)
    code, out, err = run("migrate", f"sqlite:///{here / 'sessions.db'}", "--shard-from-env",
                         "--shards", "2", "--json")
    assert code == 2
    assert err == (f"handoff-codec: error: --shard-from-env: JOB_COMPLETION_INDEX={index!r} is "
                   "not an index from 0 to 1 written in decimal (--shards 2)\n")
    assert json.loads(out)["error"]["exit"] == 2
    untouched(here, tmp_path)


def test_a_canonical_job_completion_index_runs_its_shard(
        here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    code, out, err = run("migrate", f"sqlite:///{here / 'sessions.db'}", "--shard-from-env",
                         "--shards", "2", "--dry-run", "--json")
    assert code == 0, err
    assert json.loads(out)["shards"] == ["1/2"]


@pytest.mark.parametrize("store", ["a-dir", "README.md", "notes.txt"])
def test_a_directory_or_a_text_file_is_no_store(store: str, here: Path) -> None:
    (here / "a-dir").mkdir()
    (here / "README.md").write_text("# Project\n\nIt does things.\n")
    (here / "notes.txt").write_text("\n\nmeeting at 10: {not json}\n")
    before = {p.name: p.is_file() and p.read_bytes() for p in here.iterdir()}
    code, _, err = run("migrate", store)
    assert code == 2
    what = ("is a directory" if store == "a-dir" else
            f"a text file, not JSON Lines (line {3 if store == 'notes.txt' else 1} is not JSON)")
    assert err.startswith(f"handoff-codec: error: {store}: {what}"), err
    assert {p.name: p.is_file() and p.read_bytes() for p in here.iterdir()} == before


def test_a_jsonl_store_whose_first_line_is_json_is_still_migrated(here: Path) -> None:
    path = here / "items.jsonl"
    path.write_text(json.dumps(ITEMS[0]) + "\nnot json\n")
    code, out, _ = run("migrate", str(path), "--dry-run", "--json")
    assert code == 0 and json.loads(out)["rows_scanned"] == 2  # as before
    # --format jsonl reads a text file as JSON Lines all the same.
    (here / "README.md").write_text("# Project\n")
    code, out, _ = run("migrate", "README.md", "--format", "jsonl", "--dry-run", "--json")
    assert code == 0 and json.loads(out)["rows_scanned"] == 1


@pytest.mark.parametrize(("url", "option"), [
    ("postgresql://postgres@127.0.0.1:1/test?foo=1", "foo"),
    ("postgresql://postgres@127.0.0.1:1/test?sslmode=disable&sslmod=x", "sslmod"),
    ("mysql://root@127.0.0.1:1/test?charset=utf8mb4&foo=1", "foo"),
    ("redis://127.0.0.1:1/0?socket_timeout=1&foo=1", "foo"),
    ("sqlite:///{here}/sessions.db?foo=1", "foo"),
    ("sqlite:///{here}/sessions.db?uri=true&mode=ro&bar=1", "bar"),
])
def test_an_unknown_url_option_is_named_before_any_connection(
        url: str, option: str, here: Path, tmp_path: Path) -> None:
    """Port 1 refuses connections: a run that tried one would exit 4, not 2."""
    url = url.format(here=here)
    code, out, err = run("migrate", url, "--json")
    assert code == 2, err
    (line,) = err.splitlines()
    assert re.fullmatch(rf"handoff-codec: error: \S+: unknown URL option {option!r}: "
                        r"(the \w+ driver|redis-py) takes no such option", line), line
    assert json.loads(out)["error"] == {"exit": 2, "message": line.split("error: ", 1)[1]}
    untouched(here, tmp_path)


def test_known_url_options_are_taken(here: Path) -> None:
    code, out, err = run("migrate", f"sqlite:///{here / 'sessions.db'}?timeout=5", "--dry-run",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["would_migrate"] == 5


def test_every_usage_error_is_refused_before_anything_is_touched(
        here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No connection (port 1 would give exit 4), no backup file, no state directory."""
    server = "postgresql://postgres@127.0.0.1:1/test"
    for name in ("taken.jsonl", "taken.shard-1-of-2.jsonl"):  # the second: --workers 2's
        (tmp_path / name).write_text("a backup of an earlier run\n")
    monkeypatch.delenv("MISSING_KEY", raising=False)
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "01")
    cases: list[list[str]] = [
        [server, "--resum"],
        [server, "--shard", "01/2"],
        [server, "--shard-from-env", "--shards", "2"],
        [server + "?foo=1"],
        [server, "--backup-file", str(tmp_path / "taken.jsonl")],
        [server, "--workers", "2", "--backup-file", str(tmp_path / "taken.jsonl")],
        [server, "--workers", "2", "--shard", "0/2"],
        [server, "--encryption-key-env", "MISSING_KEY"],
        ["sessions.db", "--shard", "0/2"],
        ["ftp://host/x"],
    ]
    for argv in cases:
        code, _, err = run("migrate", *argv)
        assert code == 2, (argv, err)
        untouched(here, tmp_path)
    assert (tmp_path / "taken.jsonl").read_text() == "a backup of an earlier run\n"


# ---------------------------------------------------------------- friction
def test_a_mistyped_flag_prints_the_usage_line_and_one_error_line(here: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "handoff_codec", "migrate", "sessions.db",
                             "--dry-rn"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    usage, error = result.stderr.splitlines()
    assert usage == "usage: handoff-codec migrate STORE [options]"
    assert error == "handoff-codec: error: migrate: unrecognized arguments: --dry-rn"
    result = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", "--strict",
                             "--bogus"], capture_output=True, text=True, timeout=60)
    assert result.stderr.splitlines() == [
        "usage: handoff-codec decode [options] [FILE]",
        "handoff-codec: error: decode: unrecognized arguments: --bogus"]


def test_ctrl_c_prints_the_resume_command_which_finishes_the_run(tmp_path: Path) -> None:
    shutil.copy(SESSIONS, tmp_path / "sessions.db")
    result = interrupt_migration(tmp_path)
    assert result.returncode == 130
    (line,) = result.stderr.splitlines()
    command = line.split("to go on: ", 1)[1].split("; to undo: ", 1)[0]
    assert command.endswith(" --resume")
    argv = shlex.split(command)
    assert argv[:2] == ["handoff-codec", "migrate"]
    env = {**os.environ, "HANDOFF_CODEC_STATE_DIR": str(tmp_path / "state")}
    resumed = subprocess.run([sys.executable, "-m", "handoff_codec", *argv[1:], "--pause", "0",
                              "--json"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["resumed"] and report["untouched"] == 0
    # The store is current: a second look finds nothing to migrate.
    code, out, _ = run("migrate", str(tmp_path / "sessions.db"), "--dry-run", "--json")
    assert (code, json.loads(out)["would_migrate"]) == (0, 0)


def test_a_resumed_run_counts_each_session_once(tmp_path: Path) -> None:
    """The first batch (one row of the first session) is committed, then Ctrl-C; the
    resumed run reads that session's other rows: it is still one session."""
    shutil.copy(SESSIONS, tmp_path / "sessions.db")
    with contextlib.closing(sqlite3.connect(SESSIONS)) as conn:
        sessions = conn.execute("SELECT count(DISTINCT session_id) FROM agent_messages"
                                ).fetchone()[0]
        first = conn.execute("SELECT session_id FROM agent_messages ORDER BY id LIMIT 2"
                             ).fetchall()
    assert first[0] == first[1]  # the first session has rows after the first batch
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    code, out, _ = run("migrate", url, "--dry-run", "--json")
    assert (code, json.loads(out)["sessions"]) == (0, sessions) and sessions == 6
    assert interrupt_migration(tmp_path).returncode == 130
    env = {**os.environ, "HANDOFF_CODEC_STATE_DIR": str(tmp_path / "state")}
    resumed = subprocess.run([sys.executable, "-m", "handoff_codec", "migrate", url,
                              "--batch-size", "1", "--backup-file", str(tmp_path / "b.jsonl"),
                              "--resume", "--json"], capture_output=True, text=True, env=env,
                             timeout=120)
    report = json.loads(resumed.stdout)
    assert report["resumed"] and report["sessions"] == sessions
    assert report["counts"]["sessions"] == sessions


def test_a_dry_run_says_would_migrate_and_a_run_migrated(here: Path) -> None:
    code, out, _ = run("migrate", "sessions.db", "--dry-run", "--json")
    dry = json.loads(out)
    assert code == 0 and dry["would_migrate"] == 5 and "migrated" not in dry
    assert sum(dry["would_migrate_by_format"].values()) == 5
    assert "migrated_by_format" not in dry and "migrated_with_loss_notes" not in dry
    assert dry["counts"]["would_migrate"] == 5 and "migrated" not in dry["counts"]
    code, out, _ = run("migrate", "sessions.db", "--json")
    real = json.loads(out)
    assert code == 0 and real["migrated"] == 5 and "would_migrate" not in real


def test_one_backups_field(here: Path) -> None:
    code, out, _ = run("migrate", "sessions.db", "--dry-run", "--json")
    assert code == 0 and "backup" not in json.loads(out) and json.loads(out)["backups"] == []
    code, out, _ = run("migrate", "sessions.db", "--json")
    report = json.loads(out)
    assert "backup" not in report
    (backup,) = report["backups"]
    assert Path(backup).resolve().parent == here and Path(backup).name.startswith(
        "sessions.db.bak-")


def test_replay_given_a_summary_says_to_decode_it_first(tmp_path: Path) -> None:
    path = tmp_path / "summary.txt"
    path.write_text(handoff_codec.dumps(ITEMS))
    code, out, err = run("replay", str(path), "--target", "anthropic")
    assert (code, out) == (1, "")
    assert err.endswith(f"this is a summary's text, not items: read it into items first with "
                        f"`handoff-codec decode {path} | handoff-codec replay --target "
                        "anthropic`\n")
    for command in (["validate"], ["encode"]):
        code, _, err = run(*command, str(path))
        assert code == 1 and f"`handoff-codec decode {path} | handoff-codec" in err


def test_the_top_level_help_names_every_store_form() -> None:
    code, out, _ = run("--help")
    assert code == 0
    text = " ".join(out.split())
    assert "STORE is a JSONL file of items, a SQLiteSession database, or a URL" in text
    for scheme in registered_schemes():
        assert f"{scheme}://" in text, scheme


# ---------------------------------------------------------------- one report shape
SHAPE = {"ok", "exit", "counts", "problems", "next"}


def _problem_keys(report: dict[str, Any]) -> None:
    for problem in report["problems"]:
        assert {"where", "code", "message", "severity"} <= set(problem)
        assert problem["severity"] in ("error", "repair", "warning", "info")
    counts = report["counts"]
    for severity in ("error", "repair", "warning", "info"):
        assert counts[f"{severity}s"] == sum(p["severity"] == severity
                                             for p in report["problems"])


def test_decode_validate_and_migrate_report_in_one_shape(tmp_path: Path,
                                                         here: Path) -> None:
    (tmp_path / "lossy.txt").write_text(LOSSY)
    (tmp_path / "empty.json").write_text(json.dumps(
        [{"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}]))
    (tmp_path / "untouched.jsonl").write_text(json.dumps(UNREADABLE) + "\n")
    reports = {}
    for name, argv, code in [
        ("decode", ["decode", str(tmp_path / "lossy.txt")], 3),
        ("validate", ["validate", str(tmp_path / "empty.json"), "--target", "anthropic"], 1),
        ("migrate", ["migrate", str(tmp_path / "untouched.jsonl"), "--dry-run"], 1),
    ]:
        got, out, _ = run(*argv, "--json")
        report = json.loads(out)
        assert got == code and set(report) >= SHAPE, name
        assert (report["ok"], report["exit"]) == (False, code)
        assert report["counts"]["items"] >= 1
        assert report["problems"] and all(p["severity"] == "error"
                                          for p in report["problems"][:1])
        _problem_keys(report)
        reports[name] = report
    assert reports["decode"]["problems"][0] | {"message": ""} == {
        "where": "line 4", "code": "unrecognised", "message": "", "severity": "error",
        "line": 4}
    assert reports["decode"]["next"] == (
        f"handoff-codec decode --allow-loss --json {tmp_path}/lossy.txt")
    assert reports["validate"]["problems"][0]["where"] == "item 0"
    assert reports["migrate"]["problems"][0]["where"] == "line 1"
    assert reports["migrate"]["problems"][0]["code"] == "untouched"
    # The next command, where there is one.
    code, out, _ = run("migrate", "sessions.db", "--dry-run", "--json")
    assert json.loads(out)["next"] == "handoff-codec migrate sessions.db"
    (tmp_path / "good.json").write_text(json.dumps(ITEMS))
    code, out, _ = run("validate", str(tmp_path / "good.json"), "--target", "gemini", "--json")
    assert json.loads(out)["next"] == f"handoff-codec replay --target gemini {tmp_path}/good.json"


def test_the_text_reports_end_with_counts_and_next(tmp_path: Path, here: Path) -> None:
    (tmp_path / "lossy.txt").write_text(LOSSY)
    code, _, err = run("decode", str(tmp_path / "lossy.txt"))
    assert code == 3
    assert err.splitlines()[-3:] == [
        f"{tmp_path}/lossy.txt: 2 items; 1 recovery (1 lost)",
        f"{tmp_path}/lossy.txt: the read lost information (see above); --allow-loss accepts it",
        f"next: handoff-codec decode --allow-loss {tmp_path}/lossy.txt"]
    (tmp_path / "good.json").write_text(json.dumps(ITEMS))
    code, out, _ = run("validate", str(tmp_path / "good.json"), "--target", "bedrock")
    assert out.splitlines() == ["ok: 2 items, target bedrock",
                                f"next: handoff-codec replay --target bedrock {tmp_path}/good.json"]
    code, out, _ = run("migrate", "sessions.db", "--dry-run")
    assert "next: handoff-codec migrate sessions.db" in out.splitlines()


# ---------------------------------------------------------------- duplicate JSON keys
@pytest.mark.parametrize("command", [["encode"], ["validate"], ["replay", "--target", "gemini"]])
@pytest.mark.parametrize(("text", "place", "key"), [
    ('[{"role": "user", "role": "system", "content": "x"}]', "1:19", "role"),
    ('[{"role": "user",\n  "content": "a",\n  "content": "b"}]', "3:3", "content"),
    ('{"role": "user", "content": [{"type": "input_text", "text": "a", "text": "b"}]}',
     "1:66", "text"),
    ('{"role": "user", "content": "x"}\n{"role": "user", "content": "y", "role": "system"}\n',
     "2:34", "role"),
])
def test_a_key_twice_in_one_object_is_refused_with_its_place(
        command: list[str], text: str, place: str, key: str, tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text(text)
    code, out, err = run(*command, str(path))
    assert (code, out) == (1, "")
    assert err == (f"handoff-codec: error: {path}:{place}: invalid JSON: the key "
                   f'"{key}" appears twice in one object (which value is meant?)\n')


def test_the_same_key_in_two_objects_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text('[{"role": "user", "content": "x"}, {"role": "user", "content": "y"}]')
    code, out, _ = run("encode", str(path))
    assert code == 0 and handoff_codec.loads(out.removesuffix("\n")) == [
        {"role": "user", "content": "x"}, {"role": "user", "content": "y"}]
