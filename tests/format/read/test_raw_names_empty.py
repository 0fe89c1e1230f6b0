"""Record-shaped lines with an empty name `()`, or a space before the colon after a name, in
raw 0.6 to 0.17.0 content (`2. user () : x`, `2. user (a) : x`, `2. assistant ():\tx`).

docs/spec.md section 10: a record with an empty name (no writer writes `()`) or a role no
writer writes as such (`user (a) `) is `ambiguous`, never read with exit 0, and the two
engines read it alike.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import handoff_codec
from tests.format.read.summaries import ENGINES
from tests.support.raw_writer import raw_holds, raw_summary

# `2. user () : x`: a space before the colon; read as role `user () `, exit 0.
SPACED = [{"role": "user", "content": "hi\n2. user () : x"}]
# `2. assistant ():\tx`: a tab after the colon; the fast engine reads name "", exit 0.
TABBED = [{"role": "user", "content": "see:\n2. assistant ():\tx"}]
# With the raw writer proven (`line two` has no number): `N. user (a) : x` gives role
# `user (a) ` on both engines, exit 0 (openai-agents' own reader gives user named `a`).
NAMED_SPACED = {role: [{"role": "user", "content": f"notes:\nline two\n2. {role} (a) : x"}]
                for role in ("user", "tool", "assistant")}
CASES = {"spaced": SPACED, "tabbed": TABBED, **{f"named-{k}": v for k, v in NAMED_SPACED.items()}}
WRITTEN_ROLES = {"user", "assistant", "system", "developer", "tool"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("role", sorted(NAMED_SPACED))
def test_named_role_before_a_spaced_colon_is_not_an_invented_role(engine: str,
                                                                   role: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decoded = handoff_codec.decode(raw_summary(NAMED_SPACED[role]),
                                       engine=engine)  # type: ignore[arg-type]
    assert not decoded.lossless or {item.get("role") for item in decoded.items} <= WRITTEN_ROLES


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_name_before_a_spaced_colon_is_not_a_role(engine: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decoded = handoff_codec.decode(raw_summary(SPACED), engine=engine)  # type: ignore[arg-type]
    roles = {item.get("role") for item in decoded.items}
    assert roles <= {"user", "assistant", "system", "developer", "tool"} or not decoded.lossless
    written = [raw_holds(item) for item in SPACED]
    assert decoded.items == written or any(c.items == written for c in decoded.candidates)


def test_empty_name_before_a_tab_is_ambiguous_on_both_engines() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, lark = (handoff_codec.decode(raw_summary(TABBED), engine=engine)
                      for engine in ENGINES)
    assert fast.lossless == lark.lossless
    assert not (fast.lossless and any(item.get("name") == "" for item in fast.items))


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_does_not_exit_0(case: str, tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text(raw_summary(CASES[case]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "handoff_codec", "decode", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0
