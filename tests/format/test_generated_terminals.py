"""``handoff_codec/format/terminals.py`` holds the grammar's terminals as Lark compiles them.

The fast readers take their patterns from that generated module, so that a
read does not import Lark. These tests regenerate it in memory from
``grammar/*.lark`` and fail when the checked-in file differs (run
``python tools/generate_terminals.py`` after editing the grammar).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lark import Lark

from handoff_codec.format import grammar as _grammar
from handoff_codec.format.terminals import PATTERNS


def _lark_terminals(name: str) -> dict[str, str]:
    lexer = Lark(_grammar.grammar_text(name), parser=None, lexer="basic",
                 import_paths=[str(_grammar.grammar_dir())])
    return {str(t.name): t.pattern.to_regexp() for t in lexer.terminals}


GENERATOR = Path(__file__).resolve().parents[2] / "tools" / "generate_terminals.py"


def test_the_checked_in_module_is_what_the_grammar_generates() -> None:
    done = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_terminal_reads_as_lark_compiles_it(name: str) -> None:
    compiled = _lark_terminals(name)
    assert PATTERNS[name] == compiled
    for terminal, pattern in compiled.items():
        assert _grammar.terminal(terminal, name).pattern == pattern


def test_literals_come_from_the_generated_patterns() -> None:
    assert _grammar.literal("EMPTY_TRANSCRIPT") == "(no previous turns recorded)"
    assert _grammar.literal("LEGACY_PREAMBLE", "legacy") == (
        "For context, here is the conversation so far:")
    with pytest.raises(ValueError, match="not one string literal"):
        _grammar.literal("KNOWN_ROLE")
    with pytest.raises(KeyError, match="generate_terminals"):
        _grammar.terminal("NO_SUCH_TERMINAL")
