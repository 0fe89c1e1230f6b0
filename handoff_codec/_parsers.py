"""Find the grammar files and build the cached LALR parsers.

Parsers are built on first use, once per configuration (grammar file, preamble,
markers), so ``import handoff_codec`` does not import or run Lark.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lark import Lark
    from lark.lexer import TerminalDef

__all__ = ["grammar_text", "literal", "parser", "terminal"]


def _grammar_dir() -> Path:
    """The folder holding ``*.lark``: inside the installed package, else the repo's."""
    from importlib import resources

    packaged = resources.files("handoff_codec") / "grammar"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "grammar"


@functools.cache
def grammar_text(name: str) -> str:
    """The text of ``grammar/<name>.lark``."""
    return (_grammar_dir() / f"{name}.lark").read_text(encoding="utf-8")


@functools.cache
def parser(
    name: str,
    *,
    literals: tuple[tuple[str, str], ...],
    transformer: Any = None,
) -> Lark:
    """An LALR parser for ``grammar/<name>.lark``.

    ``literals`` replaces the patterns of the named string terminals (the
    preamble and markers of a Codec). A ``transformer`` runs while parsing, so
    no parse tree is built. The result is cached for each distinct argument set.
    """
    from lark import Lark
    from lark.lexer import PatternStr

    replacements = dict(literals)

    def edit(terminal: TerminalDef) -> TerminalDef:
        if terminal.name in replacements:
            terminal.pattern = PatternStr(replacements[terminal.name])
        return terminal

    return Lark(
        grammar_text(name),
        parser="lalr",
        lexer="contextual",
        transformer=transformer,
        edit_terminals=edit,
        import_paths=[str(_grammar_dir())],
        maybe_placeholders=False,
    )


@functools.cache
def _lexer_only(grammar: str) -> Lark:
    """``grammar/<grammar>.lark`` loaded without a parser: its terminals, built once."""
    from lark import Lark

    return Lark(grammar_text(grammar), parser=None, lexer="basic",
                import_paths=[str(_grammar_dir())])


@functools.cache
def terminal(name: str, grammar: str = "summary") -> re.Pattern[str]:
    """The compiled regular expression of terminal ``name``, with its named groups."""
    return re.compile(_lexer_only(grammar).get_terminal(name).pattern.to_regexp())


def literal(name: str, grammar: str = "summary") -> str:
    """The string that terminal ``name``, defined by one string literal, matches."""
    pattern = terminal(name, grammar).pattern
    text = re.sub(r"\\(.)", r"\1", pattern)  # re.escape undone
    if re.escape(text) != pattern:
        raise ValueError(f"terminal {name} is not one string literal")
    return text
