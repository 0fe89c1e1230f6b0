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
