"""The command line: encode, decode, one-line errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import handoff_codec
from handoff_codec.cli import main

ITEMS = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "name": "bot", "content": ""},
    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "handoff_codec.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_encode_then_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "items.json"
    source.write_text(json.dumps(ITEMS))
    assert main(["encode", str(source)]) == 0
    text = capsys.readouterr().out
    assert text == handoff_codec.dumps(ITEMS) + "\n"
    summary = tmp_path / "summary.txt"
    summary.write_text(text)
    assert main(["decode", str(summary)]) == 0
    assert json.loads(capsys.readouterr().out) == ITEMS


def test_jsonl_in_message_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "items.jsonl"
    source.write_text("\n".join(json.dumps(item) for item in ITEMS) + "\n")
    assert main(["encode", "--message", str(source)]) == 0
    message = json.loads(capsys.readouterr().out)
    assert message == handoff_codec.format.summarize(ITEMS)
    (tmp_path / "message.json").write_text(json.dumps(message))
    assert main(["decode", "--strict", str(tmp_path / "message.json")]) == 0
    assert json.loads(capsys.readouterr().out) == ITEMS


def test_stdin_and_custom_markers() -> None:
    result = run("encode", "--start", "<h>", "--end", "</h>", stdin=json.dumps(ITEMS))
    assert result.returncode == 0
    back = run("decode", "--start", "<h>", "--end", "</h>", stdin=result.stdout)
    assert json.loads(back.stdout) == ITEMS


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (
            ["decode"],
            "not a summary",
            "<stdin>:1:1: unexpected 'not a summary'; expected the preamble line",
        ),
        (
            ["decode", "--strict"],
            handoff_codec.dumps(ITEMS).replace("2. ", "7. "),
            "<stdin>:4:1: record number '7' out of sequence",
        ),
        (["encode"], "[1, 2]", "-: item 0 is int, expected an object"),
        (["encode"], "{not json", "-:1:2: invalid JSON"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(args: list[str], stdin: str, message: str) -> None:
    result = run(*args, stdin=stdin)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("handoff-codec: error: " + message)
    assert result.stdout == ""


@pytest.mark.parametrize("args", [[], ["bogus"], ["decode", "--no-such-flag"]])
def test_usage_errors_exit_2(args: list[str]) -> None:
    assert run(*args).returncode == 2


def test_dash_v_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    for flag in ("-V", "--version"):
        with pytest.raises(SystemExit) as exit_:
            main([flag])
        assert exit_.value.code == 0
        assert capsys.readouterr().out == f"handoff-codec {version('handoff-codec')}\n"
