"""A request with no turn is refused by every provider: ``validate`` and ``replay`` both exit 1
on it, with the same code, for every target, and the API agrees."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.cli import main
from handoff_codec.replay import PROVIDERS, ReplayError, to_provider, validate

SYSTEM_ONLY = [{"role": "system", "content": "be nice"}]
# OpenAI and Mistral take a system message alone; the native APIs need a user turn.
NATIVE = ("anthropic", "gemini", "bedrock")
EMPTY_CASES = [(target, []) for target in PROVIDERS] + [(t, SYSTEM_ONLY) for t in NATIVE]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("target", "items"), EMPTY_CASES)
def test_validate_and_replay_refuse_an_empty_request(tmp_path: Path, target: str,
                                                     items: list[Any]) -> None:
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items), "utf-8")
    code, out, _ = run("validate", str(path), "--target", target)
    assert code == 1
    assert "error     no-messages" in out
    code, out, err = run("replay", str(path), "--target", target)
    assert code == 1 and out == ""
    assert err.startswith(f"handoff-codec: error: {path}: no-messages: ")


@pytest.mark.parametrize(("target", "items"), EMPTY_CASES)
def test_the_api_refuses_an_empty_request(target: str, items: list[Any]) -> None:
    report = validate(items, target=target)
    assert [(p.index, p.code) for p in report.errors] == [(None, "no-messages")]
    with pytest.raises(ReplayError) as caught:
        to_provider(items, target)
    assert caught.value.code == "no-messages" and caught.value.index is None


def test_stdin_is_named_stdin() -> None:
    done = subprocess.run([sys.executable, "-m", "handoff_codec.cli", "replay", "--target",
                           "anthropic"], input="[]", capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr.startswith("handoff-codec: error: stdin: no-messages: ")


@pytest.mark.parametrize("target", ("chat_completions", "mistral"))
def test_a_system_message_alone_is_a_request_for_chat_completions(target: str) -> None:
    assert validate(SYSTEM_ONLY, target=target).ok
    assert to_provider(SYSTEM_ONLY, target).request == {"messages": SYSTEM_ONLY}
