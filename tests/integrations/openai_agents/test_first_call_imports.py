"""The first read of a process loads neither Lark nor pydantic.

Lark builds a parser only for text the fast readers hand it (to word an
error, or for ``engine="lark"``), and pydantic only when a report is dumped
or validated. Each case runs in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SETUP = (
    "import sys, handoff_codec\n"
    "from handoff_codec.format import DEFAULT_PREAMBLE as P, DEFAULT_START as S, DEFAULT_END as E\n"
    "current = handoff_codec.dumps([{'role': 'user', 'content': 'hi'}, {'type': 'x', 'a': 1}])\n"
    "legacy = '\\n'.join(['For context, here is the conversation so far:', S,\n"
    "                     '1. user', '2. assistant: a', 'b', '3. function_call: {\"a\": 1}', E])\n"
    "def loaded(*names):\n"
    "    return sorted(name for name in names if name in sys.modules)\n"
)

CALLS = {
    "loads": "assert handoff_codec.loads(current)[0] == {'role': 'user', 'content': 'hi'}",
    "loads strict": "handoff_codec.loads(current, strict=True)",
    "decode": "assert handoff_codec.decode(current).recoveries == []",
    "decode legacy": "assert handoff_codec.decode(legacy).recoveries",
    "recoveries read": "[(r.line, r.kind, r.message)"
                       " for r in handoff_codec.decode(legacy).recoveries]",
    "flatten": "assert handoff_codec.flatten([{'role': 'assistant', 'content': legacy}])",
    "flatten_report": "handoff_codec.format.default_codec.flatten_report("
                      "[{'role': 'assistant', 'content': current}])",
    "nest": "handoff_codec.nest([{'role': 'user', 'content': 'a'}])",
}


def _loaded_after(call: str, *names: str) -> str:
    script = f"{SETUP}{call}\nprint(loaded{names!r})"
    return subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                          text=True, timeout=60).stdout.strip()


@pytest.mark.parametrize("call", list(CALLS))
def test_a_first_read_loads_no_lark_nor_pydantic(call: str) -> None:
    assert _loaded_after(CALLS[call], "lark", "pydantic", "openai", "agents") == "[]"


def test_a_broken_summary_is_worded_by_lark() -> None:
    # Both directions: the check above sees Lark when it is loaded.
    call = ("try:\n    handoff_codec.loads(current[:-3], strict=True)\n"
            "except handoff_codec.DecodeError:\n    pass")
    assert _loaded_after(call, "lark") == "['lark']"


def test_a_dump_loads_pydantic() -> None:
    call = "assert handoff_codec.decode(legacy).model_dump(mode='json')['format']"
    assert _loaded_after(call, "lark", "pydantic") == "['pydantic']"
