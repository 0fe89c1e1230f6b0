"""The ``handoff-codec`` command line.

Each subcommand lives in its own module here and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.

Exit codes, the same for every subcommand (see docs/cli.md):

====  ==========================================================
0     ok
1     invalid input, or problems found (``CliError``)
2     usage: bad arguments, or a FILE/PATH that does not exist
3     a lossy read (``decode`` without ``--allow-loss``)
4     ``migrate``: the store's server cannot be reached (retry later)
====  ==========================================================

Errors print one line on stderr, ``handoff-codec: error: ...``. With
``--json`` they also come as one JSON object on stdout,
``{"error": {"exit": N, "message": "..."}}``, so stdout always holds exactly
one JSON document. That holds for an error no subcommand foresaw too: it is
reported the same way, with exit 1, never as a traceback. Characters a stream
cannot hold (a lone surrogate, or non-ASCII on a stream that is not UTF-8)
are escaped, never a crash (see ``_io``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["EXIT_LOSSY", "EXIT_OK", "EXIT_PROBLEMS", "EXIT_UNREACHABLE", "EXIT_USAGE",
           "CliError", "main"]

COMMANDS = ("encode", "decode", "validate", "migrate", "replay")
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_LOSSY, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
# The positional arguments that name an input, checked before a subcommand runs.
_PATH_ARGUMENTS = ("file", "path")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class CliError(Exception):
    """A one-line error for the user; ``main`` prints it and exits with ``code``."""

    def __init__(self, message: str, code: int = EXIT_PROBLEMS) -> None:
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors ``main`` reports (as JSON with ``--json``)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: {message}", EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    from .._version import __version__

    parser = _Parser(
        prog="handoff-codec",
        description="Encode, decode, migrate and validate nested handoff-history summaries.",
        epilog="exit codes: 0 ok, 1 invalid input or problems found, 2 usage "
               "(including a missing path), 3 lossy read, 4 store unreachable (migrate)",
    )
    parser.add_argument("--version", action="version", version=f"handoff-codec {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}._{name}").register(subparsers)
    return parser


def _check_paths(args: argparse.Namespace) -> None:
    """A usage error (exit 2) for an input path that does not exist (URLs are the store's)."""
    for name in _PATH_ARGUMENTS:
        value = getattr(args, name, None)
        if (isinstance(value, str) and value != "-" and not _URL.match(value)
                and not os.path.lexists(value)):
            raise CliError(f"{value}: no such file", EXIT_USAGE)


def report_error(message: str, code: int, *, as_json: bool) -> int:
    """Print an error (one line on stderr; with ``as_json`` also JSON on stdout); ``code``."""
    from ._io import write_json

    line = " ".join(message.splitlines()) or "error"
    print(f"handoff-codec: error: {line}", file=sys.stderr)
    if as_json:
        write_json({"error": {"exit": code, "message": line}}, indent=None)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    from ._io import safe_streams

    arguments = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in arguments
    with safe_streams():
        try:
            args = _parser().parse_args(arguments)
            as_json = bool(getattr(args, "json", False))
            _check_paths(args)
            code: int = args.func(args)
        except CliError as exc:
            return report_error(str(exc), exc.code, as_json=as_json)
        except KeyboardInterrupt:
            print("handoff-codec: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # a case no subcommand foresaw: one line, not a traceback
            detail = str(exc) or "no message"
            return report_error(f"unexpected {type(exc).__name__}: {detail}", EXIT_PROBLEMS,
                                as_json=as_json)
    return code
