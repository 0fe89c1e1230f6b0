"""``decode --strict`` of a summary openai-agents 0.14.8 wrote with typed records
(``2. function_call: {...}``) does not say "current format" and hand back items whose role
is ``function_call``: it refuses the text (exit 1) at the first typed record, with one
line on stderr that says where, what the record is and that a lenient read accepts it;
``decode`` without ``--strict`` reads the records as the items they are (exit 0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SUMMARY = "\n".join([
    "For context, here is the conversation so far between the user and the previous agent:",
    "<CONVERSATION HISTORY>",
    "1. user: What does f return?",
    '2. function_call: {"call_id": "c1", "name": "f", "arguments": "{}"}',
    '3. function_call_output: {"call_id": "c1", "output": "42"}',
    "4. assistant: f returned 42.",
    "</CONVERSATION HISTORY>",
])  # tests/fixtures/legacy_summaries.jsonl: openai-agents 0.14.8, tool_call_roundtrip


def test_a_strict_decode_of_typed_records(tmp_path: Path) -> None:
    path = tmp_path / "summary.txt"
    path.write_text(SUMMARY, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", "--strict",
                           str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert f"{path}: current format" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        f"handoff-codec: error: {path}:4:4: a typed record 'function_call: {{...}}', "
        "as openai-agents 0.6 to 0.17.0 wrote an item")
    assert "a lenient read (without strict or --strict) accepts it" in done.stderr


def test_a_lenient_decode_reads_the_items(tmp_path: Path) -> None:
    path = tmp_path / "summary.txt"
    path.write_text(SUMMARY, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [item.get("type") or item["role"] for item in json.loads(done.stdout)] == [
        "user", "function_call", "function_call_output", "assistant"]
