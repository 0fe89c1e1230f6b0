"""``decode --strict`` of a summary openai-agents 0.14.8 wrote with typed records
(``2. function_call: {...}``) does not say "current format" and hand back items whose role
is ``function_call``: it refuses the text, or reads the records as the items they are."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SUMMARY = "\n".join([
    "For context, here is the conversation so far between the user and the previous agent:",
    "<CONVERSATION HISTORY>",
    "1. user: What does f return?",
    '2. function_call: {"call_id": "c1", "name": "f", "arguments": "{}"}',
    '3. function_call_output: {"call_id": "c1", "output": "42"}',
    "4. assistant: f returned 42.",
    "</CONVERSATION HISTORY>",
])  # tests/fixtures/legacy_summaries.jsonl: openai-agents 0.14.8, tool_call_roundtrip


@pytest.mark.xfail(strict=True, reason="the strict reader takes typed records as roles; "
                                       "the reader's rework fixes it (then drop this mark)")
def test_a_strict_decode_of_typed_records(tmp_path: Path) -> None:
    path = tmp_path / "summary.txt"
    path.write_text(SUMMARY, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", "--strict",
                           str(path)], capture_output=True, text=True, timeout=120)
    assert "current format" not in done.stderr
    if done.returncode == 0:
        roles = {item.get("role") for item in json.loads(done.stdout)}
        assert not roles & {"function_call", "function_call_output"}
    else:
        assert done.returncode == 1 and f"{path}:2:" in done.stderr
