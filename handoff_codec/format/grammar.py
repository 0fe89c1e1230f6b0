"""Find the grammar files, build the cached LALR parsers, and give their terminals.

Parsers are built on first use, once per configuration (grammar file, preamble,
markers), so ``import handoff_codec`` does not import or run Lark. The
terminals the fast readers match with come from ``terminals``, generated from
the same grammar files, so that reading does not import Lark either.
"""

from __future__ import annotations

import functools
import re

from .terminals import PATTERNS

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from pathlib import Path

    from lark import Lark
    from lark.lexer import TerminalDef

__all__ = ["alternatives", "grammar_dir", "grammar_text", "literal", "parser", "pattern",
           "signature_line", "signature_parts", "terminal"]


def grammar_dir() -> Path:
    """The folder holding ``*.lark``: inside the installed package, else the repo's."""
    from importlib import resources
    from pathlib import Path

    packaged = resources.files("handoff_codec") / "grammar"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "grammar"


@functools.cache
def grammar_text(name: str) -> str:
    """The text of ``grammar/<name>.lark``."""
    return (grammar_dir() / f"{name}.lark").read_text(encoding="utf-8")


@functools.cache
def parser(name: str, *, literals: tuple[tuple[str, str], ...]) -> Lark:
    """An LALR parser for ``grammar/<name>.lark``, built once for each ``literals``.

    ``literals`` replaces the patterns of the named string terminals (the
    preamble and markers of a Codec). In ``legacy``, whose body lines may
    hold anything, the end marker matches only at the end of the text.
    """
    from lark import Lark
    from lark.lexer import PatternRE, PatternStr

    replacements = dict(literals)

    def edit(terminal: TerminalDef) -> TerminalDef:
        if terminal.name in replacements:
            terminal.pattern = PatternStr(replacements[terminal.name])
        if name == "legacy" and terminal.name == "END_MARKER":
            terminal.pattern = PatternRE(re.escape(replacements["END_MARKER"]) + r"\Z")
            terminal.priority = 10
        return terminal

    return Lark(
        grammar_text(name),
        parser="lalr",
        lexer="contextual",
        edit_terminals=edit,
        import_paths=[str(grammar_dir())],
        maybe_placeholders=False,
    )


def pattern(name: str, grammar: str = "summary") -> str:
    """The regular expression of terminal ``name`` as text, as Lark compiles it.

    From the generated ``terminals`` module (``python tools/generate_terminals.py``
    rewrites it from the grammar). Not compiled: a pattern built from
    other terminals' text is compiled once, whole.
    """
    try:
        return PATTERNS[grammar][name]
    except KeyError:
        raise KeyError(f"no terminal {name} in grammar/{grammar}.lark as generated into "
                       "handoff_codec/format/terminals.py; run python tools/generate_terminals.py"
                       ) from None


@functools.cache
def terminal(name: str, grammar: str = "summary") -> re.Pattern[str]:
    """The compiled regular expression of terminal ``name`` (:func:`pattern`), with its
    named groups."""
    return re.compile(pattern(name, grammar))


def alternatives(name: str, grammar: str = "summary") -> tuple[str, ...]:
    """The strings of terminal ``name``, defined as string literals joined by ``|``.

    Read from the generated pattern without compiling it (``(?:a|b|c)``).
    """
    source = pattern(name, grammar)
    if not (source.startswith("(?:") and source.endswith(")")):
        raise ValueError(f"terminal {name} is not a choice of string literals")
    words = tuple(re.sub(r"\\(.)", r"\1", word) for word in source[3:-1].split("|"))
    if "(?:" + "|".join(map(re.escape, words)) + ")" != source:
        raise ValueError(f"terminal {name} is not a choice of string literals")
    return words


def literal(name: str, grammar: str = "summary") -> str:
    """The string that terminal ``name``, defined by one string literal, matches."""
    source = pattern(name, grammar)
    text = re.sub(r"\\(.)", r"\1", source)  # re.escape undone
    if re.escape(text) != source:
        raise ValueError(f"terminal {name} is not one string literal")
    return text


_HEX_DIGEST = "[0-9a-f]{64}"


@functools.cache
def signature_parts() -> tuple[str, str]:
    """The text of the grammar's ``_SIGNATURE`` line before and after its 64 hex digits."""
    signature = terminal("_SIGNATURE")
    before, _, after = (re.sub(r"\\(.)", r"\1", part)  # re.escape undone
                        for part in signature.pattern.partition(_HEX_DIGEST))
    if signature.fullmatch(f"{before}{'0' * 64}{after}") is None:
        raise AssertionError(f"_SIGNATURE {signature.pattern!r} is not a literal around "
                             f"{_HEX_DIGEST}")
    return before, after


def signature_line(digest: str) -> str:
    """The grammar's ``_SIGNATURE`` line (with its line break) for a hex SHA-256 digest."""
    before, after = signature_parts()
    return f"{before}{digest}{after}"
