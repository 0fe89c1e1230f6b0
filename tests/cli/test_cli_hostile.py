"""The CLI on hostile files: one line on stderr, exit 1, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = ["decode", "encode"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handoff_codec.cli", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def assert_one_line_error(
    result: subprocess.CompletedProcess[str], needle: str, code: int = 1
) -> None:
    assert result.returncode == code, result
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("handoff-codec: error: ")
    assert needle in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_binary_file(tmp_path: Path, command: str) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(256)) * 4)
    assert_one_line_error(run(command, str(path)), "binary file")


@pytest.mark.parametrize("command", COMMANDS)
def test_invalid_utf8(tmp_path: Path, command: str) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\u00e9 1. user: hi".encode("latin-1"))
    assert_one_line_error(run(command, str(path)), "not UTF-8")


@pytest.mark.parametrize("command", COMMANDS)
def test_empty_file(tmp_path: Path, command: str) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    needle = "empty input" if command == "encode" else "unexpected end of text"
    assert_one_line_error(run(command, str(path)), needle)


@pytest.mark.parametrize("command", COMMANDS)
def test_one_gigabyte_file_is_refused_by_size(tmp_path: Path, command: str) -> None:
    path = tmp_path / "huge.txt"
    subprocess.run(["truncate", "-s", "1G", str(path)], check=True)  # sparse: no disk used
    assert path.stat().st_size == 1 << 30
    assert_one_line_error(run(command, str(path)), "file too large (1073741824 bytes")


@pytest.mark.parametrize("command", COMMANDS)
def test_directory(tmp_path: Path, command: str) -> None:
    """A directory is no FILE: a usage error, as a missing path is."""
    assert_one_line_error(run(command, str(tmp_path)), "is a directory, not a file", code=2)


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_path(tmp_path: Path, command: str) -> None:
    assert_one_line_error(run(command, str(tmp_path / "nope.txt")), "no such file", code=2)


MAX_INPUT_BYTES = 64 << 20  # the CLI's documented input limit, 64 MiB (docs/cli.md, exit 1)


def test_oversized_stdin_is_refused_without_reading_it_all() -> None:
    result = subprocess.run(
        [sys.executable, "-c",
         "import sys; from handoff_codec.cli import main; sys.exit(main(['decode']))"],
        input=b"x" * (MAX_INPUT_BYTES + 10), capture_output=True, timeout=120, check=False)
    assert result.returncode == 1
    message = result.stderr.decode().strip()
    assert message.endswith(f"input too large (over {MAX_INPUT_BYTES} bytes)")


def test_deeply_nested_record_on_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "deep.txt"
    path.write_text(
        "For context, here is the conversation so far between the user and the previous agent:\n"
        "<CONVERSATION HISTORY>\n1. {\"a\": " + "[" * 100_000 + "\n</CONVERSATION HISTORY>\n")
    assert_one_line_error(run("decode", "--strict", str(path)), ":3:")
