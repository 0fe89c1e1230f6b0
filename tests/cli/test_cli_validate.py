"""``handoff-codec validate FILE --target T``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.cli import main

GOOD = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
EMPTY_TURNS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
               {"role": "user", "content": "  "}]


def write(tmp_path: Path, items: Any, name: str = "items.json") -> str:
    path = tmp_path / name
    path.write_text(items if isinstance(items, str) else json.dumps(items), "utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_file_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD)
    code, out, err = run(capsys, path, "--target", "anthropic")
    assert (code, out, err) == (0, "ok: 2 items, target anthropic\n"
                                   f"next: handoff-codec replay --target anthropic {path}\n", "")


def test_problems_print_as_a_table_and_exit_1(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, write(tmp_path, EMPTY_TURNS), "--target", "anthropic")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split() == ["INDEX", "SEVERITY", "CODE", "MESSAGE"]
    # Anthropic rejects the empty and the blank text: replay fills both, a repair each.
    assert lines[1].split()[:3] == ["1", "repair", "empty-turn"]
    assert lines[2].split()[:3] == ["2", "repair", "empty-turn"]
    # Aligned: every column starts at the same offset on every row.
    for column in ("SEVERITY", "CODE", "MESSAGE"):
        offset = lines[0].index(column)
        assert all(line[offset - 2:offset] == "  " and line[offset] != " "
                   for line in lines[1:3]), column
    assert lines[-2] == ("2 repairs needed (replay writes the repaired request, lists them "
                         "and exits 1): 3 items, target anthropic")
    assert lines[-1].startswith("next: handoff-codec replay --target anthropic ")


def test_same_file_is_fine_for_openai(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, write(tmp_path, EMPTY_TURNS))
    assert (code, out.splitlines()[0]) == (0, "ok: 3 items, target chat_completions")


def test_warnings_and_notes_do_not_fail(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    items = [{"role": "system", "content": "s"}, {"type": "reasoning", "id": "r", "summary": []},
             {"role": "user", "content": "hi"}]
    path = write(tmp_path, items)
    code, out, _ = run(capsys, path, "--target", "gemini")
    assert code == 0
    assert "reasoning-dropped" in out
    assert out.splitlines()[-2:] == ["ok: 3 items, target gemini",
                                     f"next: handoff-codec replay --target gemini {path}"]


def test_json_lines_and_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\n".join(json.dumps(item) for item in EMPTY_TURNS) + "\n"
    code, out, _ = run(capsys, write(tmp_path, lines, "items.jsonl"), "--target", "bedrock",
                       "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False and report["target"] == "bedrock"
    assert [(p["code"], p["severity"]) for p in report["problems"]] == [
        ("empty-turn", "repair"), ("empty-turn", "repair")]
    assert report["counts"]["repairs"] == 2


def test_unconvertible_items_are_errors(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    items = [{"role": "user", "content": "x"},
             {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}]
    code, out, _ = run(capsys, write(tmp_path, items))
    assert code == 1
    assert out.splitlines()[1].split()[:3] == ["1", "error", "unanswered-tool-call"]


def test_a_name_is_what_replay_does_with_it(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Chat Completions takes the name "bob" as it is; "Triage Agent" it does not.
    code, out, _ = run(capsys, write(tmp_path, [{"role": "user", "name": "bob", "content": "x"}]))
    assert (code, out.splitlines()[0]) == (0, "ok: 1 item, target chat_completions")
    items = [{"role": "user", "name": "Triage Agent", "content": "x"}]
    code, out, _ = run(capsys, write(tmp_path, items))
    assert code == 1
    assert out.splitlines()[1].split()[:3] == ["0", "repair", "name-dropped"]
    assert "replayable(" not in out


def test_bad_input_and_bad_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(tmp_path / "missing.json"))
    assert code == 2 and out == "" and "no such file" in err
    assert main(["validate", write(tmp_path, GOOD), "--target", "claude"]) == 2
    assert "invalid choice: 'claude'" in capsys.readouterr().err


def test_console_entry_point(tmp_path: Path) -> None:
    path = write(tmp_path, EMPTY_TURNS)
    done = subprocess.run([sys.executable, "-m", "handoff_codec.cli", "validate", path,
                           "--target", "anthropic"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "empty-turn" in done.stdout
