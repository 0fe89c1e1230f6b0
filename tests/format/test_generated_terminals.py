"""``handoff_codec/_terminals.py`` holds the grammar's terminals exactly as Lark compiles them.

The fast readers take their patterns from that generated module, so that a
read does not import Lark. These tests regenerate it in memory from
``grammar/*.lark`` and fail when the checked-in file differs (run
``python -m handoff_codec._terminals_gen`` after editing the grammar).
"""

from __future__ import annotations

import pytest
from lark import Lark

from handoff_codec import _grammar, _terminals_gen
from handoff_codec._terminals import PATTERNS


def _lark_terminals(name: str) -> dict[str, str]:
    lexer = Lark(_grammar.grammar_text(name), parser=None, lexer="basic",
                 import_paths=[str(_grammar._grammar_dir())])
    return {str(t.name): t.pattern.to_regexp() for t in lexer.terminals}


def test_the_checked_in_module_is_what_the_grammar_generates() -> None:
    assert _terminals_gen.target().read_text(encoding="utf-8") == _terminals_gen.render(), (
        "handoff_codec/_terminals.py is stale: run python -m handoff_codec._terminals_gen")
    assert _terminals_gen.main(["--check"]) == 0


@pytest.mark.parametrize("name", _terminals_gen.GRAMMARS)
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
    with pytest.raises(KeyError, match="_terminals_gen"):
        _grammar.terminal("NO_SUCH_TERMINAL")
