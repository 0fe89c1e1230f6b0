"""One exit-code table for every subcommand (docs/cli.md): a test per row.

0 ok; 1 invalid input or problems found; 2 usage, including a missing path;
3 a lossy read. With ``--json``, stdout holds exactly one JSON document, the
result or ``{"error": {"exit", "message"}}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import handoff_codec
from handoff_codec.cli import main
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START

ITEMS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
P, S, E = DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END
# A line that belongs to no record (after a first record only a writer that escapes line
# breaks writes): the lenient reader drops it (unrecognised).
LOSSY = "\n".join((P, S, '1. {"content": "hi", "role": "user"}', "2. what is this",
                   "3. assistant: ok", E))
# The short preamble of older releases: recovered, nothing lost.
RECOVERED = "\n".join((handoff_codec.format.LEGACY_PREAMBLE, S, "1. user: hi", E))


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handoff_codec", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_version_prints_the_version_and_exits_0() -> None:
    result = run("--version")
    assert (result.returncode, result.stdout) == (0, f"handoff-codec {handoff_codec.__version__}\n")


def test_python_dash_m_handoff_codec_is_the_cli() -> None:
    result = run("encode", stdin=json.dumps(ITEMS))
    assert (result.returncode, result.stdout) == (0, handoff_codec.dumps(ITEMS) + "\n")


@pytest.mark.parametrize("args", [[], ["bogus"], ["decode", "--no-such-flag"],
                                  ["encode", "--no-such-flag"]])
def test_usage_error_exits_2(args: list[str]) -> None:
    assert run(*args).returncode == 2


@pytest.mark.parametrize("command", ["encode", "decode", "validate", "migrate"])
def test_missing_path_is_a_usage_error_for_every_subcommand(command: str) -> None:
    result = run(command, "/no/such/file")
    assert result.returncode == 2
    assert result.stderr == "handoff-codec: error: /no/such/file: no such file\n"


def test_usage_error_with_json_is_a_json_object_on_stdout() -> None:
    result = run("decode", "--json", "--no-such-flag")
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["exit"] == 2 and "--no-such-flag" in error["message"]


# ------------------------------------------------------------------ encode
def test_encode_ok_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "items.json").write_text(json.dumps(ITEMS))
    assert main(["encode", "--json", str(tmp_path / "items.json")]) == 0
    assert json.loads(capsys.readouterr().out) == {"summary": handoff_codec.dumps(ITEMS)}


def test_encode_invalid_input_exits_1_with_a_json_error() -> None:
    result = run("encode", "--json", stdin="[1]")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "error": {"exit": 1, "message": "-: item 0 is int, expected an object"}}
    assert result.stderr.count("\n") == 1


def test_encode_missing_path_exits_2() -> None:
    assert main(["encode", "/no/such/items.json"]) == 2


# ------------------------------------------------------------------ decode
def test_decode_ok_exits_0_and_names_the_format(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text(handoff_codec.dumps(ITEMS))
    result = run("decode", str(tmp_path / "s.txt"))
    assert (result.returncode, json.loads(result.stdout)) == (0, ITEMS)
    assert result.stderr == (f"{tmp_path / 's.txt'}: current format\n"
                             f"{tmp_path / 's.txt'}: 2 items; 0 recoveries (0 lost)\n")


def test_decode_prints_each_recovery_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text(RECOVERED)
    result = run("decode", str(tmp_path / "s.txt"))
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    decoded = handoff_codec.decode(RECOVERED)
    assert decoded.format.value != "current"
    assert lines[0].startswith(f"{tmp_path / 's.txt'}: an older format, written by ")
    assert f"{tmp_path / 's.txt'}:1: legacy_preamble: the short legacy preamble" in lines


def test_decode_json_is_items_format_and_recoveries() -> None:
    result = run("decode", "--json", stdin=RECOVERED)
    report = json.loads(result.stdout)
    assert set(report) == {"items", "format", "recoveries", "writers", "unkept", "candidates",
                           "ok", "exit", "counts", "problems", "next"}
    assert report["items"] == [{"role": "user", "content": "hi"}]
    assert report["recoveries"][0]["kind"] == "legacy_preamble"
    assert set(report["recoveries"][0]) == {"line", "kind", "message", "lost"}


def test_decode_invalid_input_exits_1() -> None:
    result = run("decode", "--json", stdin="not a summary")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["message"].startswith("<stdin>:1:1: ")


def test_decode_lossy_read_exits_3_and_says_which_line() -> None:
    result = run("decode", stdin=LOSSY)
    assert result.returncode == 3
    assert "<stdin>:4: unrecognised: " in result.stderr
    assert json.loads(result.stdout) == [{"role": "user", "content": "hi"},
                                         {"role": "assistant", "content": "ok"}]


def test_decode_allow_loss_accepts_a_lossy_read() -> None:
    assert run("decode", "--allow-loss", stdin=LOSSY).returncode == 0
    assert run("decode", "--allow-loss", stdin=handoff_codec.dumps(ITEMS)).returncode == 0


def test_decode_missing_path_exits_2() -> None:
    assert main(["decode", "/no/such/summary.txt"]) == 2


def test_the_version_is_the_one_the_package_metadata_declares() -> None:
    from importlib.metadata import version

    assert handoff_codec.__version__ == version("handoff-codec")
