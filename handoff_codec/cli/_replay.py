"""``handoff-codec replay``: items to the request body a provider's own API takes.

``replay`` and ``validate`` give one verdict (:func:`check`): exit 0 when the
items replay to the target as they are. When the request needed repairs (a
null turn filled, a name dropped, ...: ``Conversion.repairs``), ``replay``
still prints it, lists each repair on stderr and exits 1.
"""

from __future__ import annotations

import argparse
import base64
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._exits import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError
from ._io import add_input_argument, add_json_argument, read_items, write_json

if TYPE_CHECKING:
    from ..replay import Conversion, Problem

# The targets of ``to_provider``; kept here so that --help loads no converter.
PROVIDERS = ("chat_completions", "anthropic", "gemini", "bedrock", "mistral")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help="convert items (JSON or JSON Lines) to a provider's native request body",
        usage="%(prog)s --target T [options] [FILE]",
        description="Print the native request body (JSON) for the target: messages and "
                    "system for anthropic and bedrock, contents and system_instruction for "
                    "gemini, messages for chat_completions and mistral. Notes on merged "
                    "turns go to stderr. Exit 0 when the items replay as they are; exit 1 "
                    "when they cannot be replayed, or when the request needed repairs (it is "
                    "printed all the same, each repair listed on stderr, as validate lists "
                    "them); 2 for usage errors. With --json, errors too come as JSON on "
                    "stdout. Summary text is not items: handoff-codec decode reads it into "
                    "items first.")
    add_input_argument(parser)
    parser.add_argument("--target", choices=PROVIDERS, required=True,
                        help="the provider API to write for")
    parser.add_argument("--placeholder", default=None,
                        help="text for an empty turn the target rejects (default: '.')")
    parser.add_argument("--names", choices=("keep", "drop", "inline"), default="keep",
                        help="a message's name: keep it where the target takes it (only "
                             "chat_completions does) and drop it elsewhere; drop it on every "
                             "target; or write it in front of the text as '[name] ' on every "
                             "target (default: keep). A name dropped or inlined is a repair")
    parser.add_argument("--quiet", action="store_true",
                        help="do not print notes on stderr (repairs are always listed)")
    add_json_argument(parser, "the request body (as without it)")
    parser.set_defaults(func=run)


@dataclass(frozen=True)
class Check:
    """What replaying ``items`` to a target gives: the request, or why there is none."""

    conversion: Conversion | None
    error: Problem | None

    @property
    def repairs(self) -> list[Problem]:
        return [] if self.conversion is None else self.conversion.repairs

    @property
    def exit_code(self) -> int:
        """0 when the items replay as they are; 1 when they cannot, or needed repairs."""
        return EXIT_OK if self.error is None and not self.repairs else EXIT_PROBLEMS


def check(items: Any, target: str, *, placeholder: str | None = None,
          names: str = "keep") -> Check:
    """The one verdict of ``replay`` and ``validate`` at the command line."""
    from ..replay import Problem, ReplayError, to_provider

    try:
        conversion = to_provider(items, target, placeholder=placeholder,
                                 names=names)  # type: ignore[arg-type]
    except ReplayError as exc:
        return Check(None, Problem(index=exc.index, code=exc.code, message=exc.msg))
    return Check(conversion, None)


def _bytes_as_base64(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def source_name(file: str) -> str:
    """How a message names the input: the FILE given, or ``stdin``."""
    return "stdin" if file == "-" else file


def _where(note: Problem, file: str) -> str:
    return source_name(file) if note.index is None else f"item {note.index}"


def run(args: argparse.Namespace) -> int:
    items = read_items(args.file, then=f"handoff-codec replay --target {args.target}")
    try:
        result = check(items, args.target, placeholder=args.placeholder, names=args.names)
    except ValueError as exc:  # a placeholder the target rejects
        raise CliError(str(exc), EXIT_USAGE) from None
    if result.conversion is None:
        assert result.error is not None
        error = result.error
        if error.index is None:
            raise CliError(f"{source_name(args.file)}: {error.code}: {error.message}")
        raise CliError(f"{args.file}: item {error.index}: {error.message}")
    repairs = result.repairs
    for note in result.conversion.notes:
        if note in repairs:
            print(f"handoff-codec: repair: {_where(note, args.file)}: {note.code}: {note.message}",
                  file=sys.stderr)
        elif not args.quiet:
            print(f"handoff-codec: note: {_where(note, args.file)}: {note.code}: {note.message}",
                  file=sys.stderr)
    write_json(result.conversion.request, default=_bytes_as_base64)
    if repairs:
        count = len(repairs)
        print(f"handoff-codec: {count} repair{'s' if count != 1 else ''}: the items do not "
              f"replay to {args.target} as they are; the request above is the repaired one",
              file=sys.stderr)
    return result.exit_code
