"""``handoff-codec replay FILE --target T``: the native request body as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.cli import main

ITEMS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"},
         {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
         {"type": "function_call_output", "call_id": "a", "output": ""},
         {"role": "user", "content": "thanks"}]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, items: Any) -> str:
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items), "utf-8")
    return str(path)


@pytest.mark.parametrize(("target", "turns_key"), [
    ("anthropic", "messages"), ("gemini", "contents"), ("bedrock", "messages"),
    ("chat_completions", "messages")])
def test_prints_the_native_body(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                target: str, turns_key: str) -> None:
    # Bedrock rejects the empty tool result: the one repair, listed even with --quiet.
    repaired = target == "bedrock"
    code, out, err = run(capsys, write(tmp_path, ITEMS), "--target", target)
    assert code == (1 if repaired else 0)
    body = json.loads(out)
    assert turns_key in body
    if target != "chat_completions":
        assert len(body[turns_key]) == 3  # user, assistant (tool call), user (result + text)
        assert "merged" in err
    quiet_code, quiet_out, quiet_err = run(capsys, write(tmp_path, ITEMS), "--target", target,
                                           "--quiet")
    assert (quiet_code, quiet_out) == (code, out)
    assert quiet_err == "".join(line + "\n" for line in err.splitlines()
                                if "repair" in line.split(":")[1])
    assert ("handoff-codec: repair: item 3: empty-turn: " in quiet_err) is repaired


def test_bytes_are_written_as_base64(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    items = [{"role": "user", "content": [{"type": "input_image",
                                           "image_url": "data:image/png;base64,iVBORw0KGgo="}]}]
    code, out, _ = run(capsys, write(tmp_path, items), "--target", "bedrock")
    assert code == 0
    image = json.loads(out)["messages"][0]["content"][0]["image"]
    assert image == {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}


def test_cannot_be_replayed_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    items = [{"role": "user", "content": "go"},
             {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}]
    code, out, err = run(capsys, write(tmp_path, items), "--target", "anthropic")
    assert (code, out) == (1, "")
    assert "item 1: tool call 'a' has no tool output" in err
    assert len(err.splitlines()) == 1


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, str(tmp_path / "missing.json"), "--target", "gemini")
    assert (code, out) == (2, "") and "no such file" in err
    code, _, err = run(capsys, write(tmp_path, ITEMS), "--target", "bedrock",
                       "--placeholder", " ")
    assert code == 2 and "rejects the placeholder" in err
    assert main(["replay", write(tmp_path, ITEMS)]) == 2  # no --target


def test_bad_json_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{oops", "utf-8")
    code, out, err = run(capsys, str(path), "--target", "anthropic")
    assert (code, out) == (1, "") and "invalid JSON" in err


@pytest.mark.parametrize("names", ["drop", "inline"])
def test_names_drop_or_inline_is_a_repair(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          names: str) -> None:
    items = [{"role": "user", "content": "hi"},
             {"role": "assistant", "name": "Triage Agent", "content": "hello"}]
    code, out, err = run(capsys, write(tmp_path, items), "--target", "mistral",
                         "--names", names)
    assert code == 1
    assert json.loads(out)["messages"][1] == {
        "role": "assistant", "content": "[Triage Agent] hello" if names == "inline" else "hello"}
    done = "inlined" if names == "inline" else "dropped"
    assert f"handoff-codec: repair: item 1: name-{done}: " in err
