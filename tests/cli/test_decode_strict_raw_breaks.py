"""``decode --strict`` refuses a line break inside a record with one line on stderr that
says where (exit 1, docs/cli.md; a file holding NUL is refused as binary, as before), and
what ``encode`` writes for items holding NUL ``decode`` reads back exactly (exit 0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import handoff_codec
from handoff_codec.cli import main
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START

# What str.splitlines() breaks at but "\n", and NUL.
RAW = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00"]
# The record's line (the summary's fourth), with the character at {c}.
PLACES = {
    "content start": "2. assistant: {c}ok",
    "content middle": "2. assistant: o{c}k",
    "content end": "2. assistant: ok{c}",
    "name": "2. assistant (b{c}ot): ok",
}


def summary(record: str) -> str:
    return f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n1. user: hi\n{record}\n{DEFAULT_END}"


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
def test_decode_strict_refuses_it_at_its_line_and_column(
        char: str, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = PLACES[place].format(c=char)
    path = tmp_path / "summary.txt"
    path.write_bytes(summary(record).encode("utf-8"))
    assert main(["decode", "--strict", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    # A file that holds NUL is refused as binary before it is read, as every command does.
    where = f"{path}:4:{record.index(char) + 1}: raw " if char != "\x00" \
        else f"{path}: binary file"
    assert err.startswith(f"handoff-codec: error: {where}")
    assert main(["decode", "--strict", "--json", str(path)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["exit"] == 1 and error["message"].startswith(where)


ITEMS = [
    {"role": "user", "content": "a\x00b"},
    {"role": "assistant", "content": "\x00"},
    {"role": "user", "name": "x\x00y", "content": "q"},
    {"role": "user", "name": "x\u2028y", "content": "q"},
    {"type": "function_call", "call_id": "c\x00", "name": "f", "arguments": "{}"},
]


@pytest.mark.parametrize("strict", [[], ["--strict"]], ids=["lenient", "strict"])
def test_encode_then_decode_of_nul_is_exact(strict: list[str], tmp_path: Path) -> None:
    items = tmp_path / "items.json"
    items.write_text(json.dumps(ITEMS), encoding="utf-8")
    encoded = subprocess.run([sys.executable, "-m", "handoff_codec", "encode", str(items)],
                             capture_output=True, timeout=120)
    assert encoded.returncode == 0, encoded.stderr
    assert b"\x00" not in encoded.stdout
    text = encoded.stdout.decode("utf-8")
    assert handoff_codec.loads(text.removesuffix("\n"), strict=True) == ITEMS
    path = tmp_path / "summary.txt"
    path.write_bytes(encoded.stdout)
    decoded = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", *strict,
                              str(path)], capture_output=True, timeout=120)
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout) == ITEMS
