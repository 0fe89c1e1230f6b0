"""The ``handoff-codec`` command line.

Each subcommand lives in its own module here and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.

Exit codes, the same for every subcommand: :data:`EXIT_CODES`, printed by
``handoff-codec --help`` and copied in docs/cli.md.

Errors print one line on stderr, ``handoff-codec: error: ...``; a usage
error prints argparse's usage line before it (not under ``--json``). With ``--json`` they also come
as one JSON object on stdout, ``{"error": {"exit": N, "message": "..."}}``,
so stdout always holds exactly one JSON document. That holds for an error no
subcommand foresaw too: it is reported the same way, with exit 1, never as a
traceback. Characters a stream cannot hold (a lone surrogate, or non-ASCII on
a stream that is not UTF-8) are escaped, never a crash (see ``_io``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from ._exits import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_LOSSY,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_TERMINATED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    CliError,
)
from ._io import report_error, safe_streams

__all__ = ["EXIT_CODES", "EXIT_INTERRUPTED", "EXIT_LOSSY", "EXIT_OK", "EXIT_PROBLEMS",
           "EXIT_TERMINATED", "EXIT_UNREACHABLE", "EXIT_USAGE", "CliError", "main"]

COMMANDS = ("encode", "decode", "validate", "migrate", "replay")
# The forms of migrate's STORE, for the top-level help (a test checks the schemes
# against the registered stores).
STORE_FORMS = ("a JSONL file of items, a SQLiteSession database, or a URL: postgresql://, "
               "postgres://, mysql://, mariadb://, sqlite:///, redis://, rediss://, unix://")

# The positional arguments that name an input, checked before a subcommand runs.
_PATH_ARGUMENTS = ("file", "path")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that never abbreviates a flag, and whose usage errors ``main``
    reports: argparse's usage line, then one error line (as JSON too with ``--json``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)
        self.commands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("handoff-codec").strip()
        raise CliError(f"{command}: {message}" if command else message, EXIT_USAGE,
                       usage=self.format_usage())

    def parse(self, arguments: Sequence[str]) -> argparse.Namespace:
        """``parse_args``, with arguments no parser knows reported by their subcommand."""
        args, extra = self.parse_known_args(arguments)
        if extra:
            parser = self.commands.get(getattr(args, "command", None) or "", self)
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return args


def _epilog() -> str:
    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES:
        lines += textwrap.wrap(meaning, 78, initial_indent=f"  {code:<5}",
                               subsequent_indent=" " * 7)
    return "\n".join(lines)


def _parser() -> _Parser:
    from .._version import __version__

    parser = _Parser(
        prog="handoff-codec",
        description="Write and read the conversation summaries one agent hands to the next "
                    "(encode, decode), upgrade the ones in session stores (migrate), and check "
                    "and convert conversation items for a model provider (validate, replay). "
                    "FILE is a path, or - (the default) for standard input. migrate's STORE "
                    f"is {STORE_FORMS}.",
        epilog=_epilog(),
        formatter_class=_Formatter,
    )
    parser.add_argument("-V", "--version", action="version",
                        version=f"handoff-codec {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}._{name}").register(subparsers)
        parser.commands[name] = subparsers.choices[name]
    return parser


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """The epilog as written (the exit-code table); the description wrapped."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("exit codes:"):
            return text
        return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent)


def _check_paths(args: argparse.Namespace) -> None:
    """A usage error (exit 2) for an input path that does not exist (URLs are the store's)."""
    for name in _PATH_ARGUMENTS:
        value = getattr(args, name, None)
        if (isinstance(value, str) and value != "-" and not _URL.match(value)
                and not os.path.lexists(value)):
            raise CliError(f"{value}: no such file", EXIT_USAGE)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in arguments
    with safe_streams():
        try:
            args = _parser().parse(arguments)
            as_json = bool(getattr(args, "json", False))
            _check_paths(args)
            code: int = args.func(args)
        except CliError as exc:
            if exc.usage and not as_json:  # under --json: one line, and the JSON document
                sys.stderr.write(exc.usage)
            return report_error(str(exc), exc.code, as_json=as_json)
        except KeyboardInterrupt:
            return report_error("interrupted", EXIT_INTERRUPTED, as_json=as_json)
        except Exception as exc:  # a case no subcommand foresaw: one line, not a traceback
            detail = str(exc) or "no message"
            return report_error(f"unexpected {type(exc).__name__}: {detail}", EXIT_PROBLEMS,
                                as_json=as_json)
    return code
