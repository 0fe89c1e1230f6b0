"""Every subcommand on text a stream cannot hold and on numbers Python cannot read.

A JSON file may hold a lone surrogate (``"a\\ud800b"``), which a Python str
holds and UTF-8 cannot, and an integer of 5,000 digits, more than
``int()`` converts by default. Through the real CLI, each subcommand, with
and without ``--json``: never a traceback, one line on stderr for a failure,
the documented exit code, stdout valid UTF-8 and, under ``--json``, exactly
one JSON document.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import handoff_codec

SURROGATE_ITEMS = [{"role": "user", "content": "a\ud800b"}, {"role": "assistant", "content": "ok"}]
BIG = "9" * 5000
# The summary as a message JSON file, as decode takes it: the surrogate and the
# number sit in the JSON that holds the summary.
SUMMARY = ("For context, here is the conversation so far between the user and the previous "
           "agent:\n<CONVERSATION HISTORY>\n1. user: a\ud800b\n2. assistant: ok\n"
           "</CONVERSATION HISTORY>")


def _inputs(tmp_path: Path, command: str, kind: str) -> Path:
    path = tmp_path / f"{kind}.json"
    if command == "decode":
        message = {"role": "assistant", "content": SUMMARY}
        text = json.dumps(message)  # ASCII: "\ud800" as an escape
        if kind == "big":
            text = text[:-1] + f', "n": {BIG}}}'
    elif command == "migrate":  # a JSONL store: an item per line
        item = ({"role": "user", "content": "a\ud800b"} if kind == "surrogate"
                else {"role": "user", "content": "x", "n": 1})
        text = json.dumps(item).replace('"n": 1', f'"n": {BIG}') + "\n"
        text += json.dumps({"role": "assistant", "content": SUMMARY}) + "\n"
    elif kind == "surrogate":
        text = json.dumps(SURROGATE_ITEMS)
    else:
        text = f'[{{"role": "user", "content": "x", "n": {BIG}}}]'
    path.write_text(text, encoding="ascii")
    return path


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "handoff_codec.cli", *args],
                          capture_output=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


COMMANDS: dict[str, list[str]] = {
    "encode": ["encode"], "decode": ["decode"], "validate": ["validate"],
    "replay": ["replay", "--target", "anthropic"], "migrate": ["migrate", "--dry-run"],
}
# What each gives: the exit code, and for a success what stdout must read back as.
EXPECTED = {
    ("encode", "surrogate"): 0, ("decode", "surrogate"): 0, ("validate", "surrogate"): 0,
    ("replay", "surrogate"): 0, ("migrate", "surrogate"): 0,
    ("encode", "big"): 1, ("decode", "big"): 1, ("validate", "big"): 1, ("replay", "big"): 1,
    # A migration leaves a row it cannot read as it is, byte for byte.
    ("migrate", "big"): 0,
}


def _check_result(command: str, as_json: bool, stdout: str, value: Any) -> None:
    """What a success prints holds the surrogate, as the same code point."""
    if command == "encode":
        text = value["summary"] if as_json else stdout.removesuffix("\n")
        assert handoff_codec.loads(text, strict=True) == SURROGATE_ITEMS
    elif command == "decode":
        assert (value["items"] if as_json else value) == SURROGATE_ITEMS
    elif command == "validate":
        assert value["messages"][0]["content"] == "a\ud800b" if as_json else stdout.startswith("ok")
    elif command == "replay":
        assert value["messages"][0]["content"][0]["text"] == "a\ud800b"
    else:
        assert value["summaries_found"] == 1 if as_json else "summaries found:  1" in stdout


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("kind", ["surrogate", "big"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_traceback_one_line_and_one_json_document(
    tmp_path: Path, command: str, kind: str, as_json: bool
) -> None:
    path = _inputs(tmp_path, command, kind)
    result = _run(*COMMANDS[command], *(["--json"] if as_json else []), str(path))
    stdout, stderr = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    assert "Traceback" not in stderr
    assert result.returncode == EXPECTED[command, kind], stderr
    lines = stderr.splitlines()
    if result.returncode:
        assert len(lines) == 1 and lines[0].startswith("handoff-codec: error: "), stderr
        assert f"{path}: invalid JSON: an integer of more than 4300 digits" in lines[0]
    else:
        assert not any(line.startswith("handoff-codec: error") for line in lines)
    json_out = as_json or (command in {"decode", "replay"} and not result.returncode)
    value = json.loads(stdout) if json_out else None  # one document, nothing after it
    if result.returncode:
        if as_json:
            assert value == {"error": {"exit": result.returncode,
                                       "message": lines[0].removeprefix("handoff-codec: error: ")}}
        else:
            assert stdout == ""
    else:
        _check_result(command, as_json, stdout, value)


def test_a_stdout_that_is_not_utf8_gets_escaped_json_or_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    items = [{"role": "user", "content": "caf\u00e9 \u2603"}]
    path.write_text(json.dumps(items), encoding="utf-8")
    ascii_out = {"PYTHONIOENCODING": "ascii"}
    result = _run("encode", "--json", str(path), env=ascii_out)
    assert result.returncode == 0 and result.stdout.isascii()
    assert handoff_codec.loads(json.loads(result.stdout)["summary"]) == items
    # The summary's own text cannot be written in ASCII: nothing is, and one line says why.
    result = _run("encode", str(path), env=ascii_out)
    assert (result.returncode, result.stdout) == (1, b"")
    (line,) = result.stderr.decode().splitlines()
    assert line == ("handoff-codec: error: standard output (ascii) cannot hold the character "
                    "U+00E9 of the summary; set PYTHONIOENCODING=utf-8, or use --json")
    # A table is for reading: what the stream cannot hold is escaped.
    result = _run("validate", str(path), env=ascii_out)
    assert (result.returncode, result.stdout.splitlines()[0]) == (
        0, b"ok: 1 item, target chat_completions")
    result = _run("decode", "--json", str(tmp_path / "no\u00e9.txt"), env=ascii_out)
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["message"] == f"{tmp_path}/no\u00e9.txt: no such file"
    assert result.stderr == f"handoff-codec: error: {tmp_path}/no\\xe9.txt: no such file\n".encode()
