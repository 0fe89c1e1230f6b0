"""What a newcomer meets at the command line: alternatives refused, hints that can be run."""

from __future__ import annotations

import json
import subprocess
import sys


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handoff_codec.cli", *args], input=stdin,
                          capture_output=True, text=True, check=False)


ITEMS = json.dumps([{"role": "user", "content": "hi"}])


def test_encode_refuses_message_with_json() -> None:
    done = cli("encode", "--message", "--json", stdin=ITEMS)
    assert done.returncode == 2  # --json asked for errors as JSON: it is one
    assert json.loads(done.stdout)["error"]["exit"] == 2
    assert "--message and --json are alternatives" in done.stderr


def test_the_next_command_after_stdin_names_stdin() -> None:
    done = cli("validate", "--target", "anthropic", stdin=ITEMS)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "next: handoff-codec replay --target anthropic -"


def test_a_rejected_placeholder_says_what_would_do() -> None:
    items = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}])
    for target in ("bedrock", "anthropic", "gemini", "mistral"):
        done = cli("replay", "--placeholder", "" if target in ("gemini", "mistral") else " ",
                   "--target", target, stdin=items)
        assert done.returncode == 2
        assert "rejects the placeholder" in done.stderr and "such as '.'" in done.stderr


def test_decode_of_json_items_says_to_encode() -> None:
    done = cli("decode", stdin=ITEMS)
    assert done.returncode == 1
    assert "this is JSON items, not a summary: `handoff-codec encode`" in done.stderr


def test_chat_completions_tool_messages_point_to_function_call_items() -> None:
    items = json.dumps([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}])
    done = cli("validate", stdin=items)
    assert done.returncode == 1
    assert done.stdout.count("function_call_output item") == 2


def test_the_main_help_names_every_command_in_plain_words() -> None:
    first = cli("--help").stdout.split("\n\n")[1]
    for command in ("encode", "decode", "migrate", "validate", "replay"):
        assert command in first
    assert "nested handoff-history" not in first


def test_the_face_lists_no_stray_names() -> None:
    import handoff_codec

    assert "annotations" not in dir(handoff_codec)
    assert len(handoff_codec.__all__) == 12
