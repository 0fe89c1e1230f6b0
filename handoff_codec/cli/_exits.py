"""The CLI's exit codes (the table ``--help`` prints) and :class:`CliError`.

A module of its own so that every subcommand module imports it, and none
imports the ``cli`` package that imports them.
"""

from __future__ import annotations

__all__ = ["EXIT_CODES", "EXIT_INTERRUPTED", "EXIT_LOSSY", "EXIT_OK", "EXIT_PROBLEMS",
           "EXIT_UNREACHABLE", "EXIT_USAGE", "CliError"]

#: The exit codes, as ``EXIT_CODES`` words them.
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_LOSSY, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
#: Ctrl-C: 128 + SIGINT, as a shell reports a process that SIGINT stopped.
EXIT_INTERRUPTED = 130

#: The exit-code table ``--help`` prints: one row per kind of outcome (a code may have several).
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "ok: encode wrote the summary; decode read it losing nothing; validate and "
              "replay: the items replay to the target as they are (replay wrote the request); "
              "migrate left every summary current (a dry run: would)"),
    (EXIT_PROBLEMS, "invalid input: binary, not UTF-8, empty or over 64 MiB; not JSON (an "
                    "integer of more than 4,300 digits included); a duplicate JSON key; not a "
                    "summary; items that cannot be encoded, or a summary stdout cannot hold; "
                    "or an error no subcommand foresaw (unexpected TypeError: ...)"),
    (EXIT_PROBLEMS, "problems found: validate or replay found an error, or the items replay "
                    "only with repairs (replay prints the repaired request and lists the "
                    "repairs on stderr); migrate left a row "
                    "untouched or saw one change under it, or refused (open writers, a lock) "
                    "or failed, and wrote nothing"),
    (EXIT_USAGE, "usage, refused before anything is touched: an unknown flag or subcommand "
                 "(flags are never abbreviated), a bad value, a FILE or STORE that does not "
                 "exist, is a directory or is no store (a text file), a flag only server "
                 "stores take given with a file, an unknown URL scheme or URL option, a "
                 "missing driver, a bad JOB_COMPLETION_INDEX, a backup file that exists; and, "
                 "once connected, a missing table or a shard another run holds"),
    (EXIT_LOSSY, "lossy read: decode read the summary but information is missing (the items "
                 "are printed all the same; --allow-loss exits 0)"),
    (EXIT_UNREACHABLE, "store unreachable: migrate could not reach the store's server; this "
                       "attempt changed nothing; retry later (with --resume if a run had "
                       "started)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); migrate says how to continue (the --resume "
                       "command)"),
)


class CliError(Exception):
    """A one-line error for the user; ``main`` prints it and exits with ``code``.

    ``usage``: argparse's usage line, printed before the error (usage errors).
    """

    def __init__(self, message: str, code: int = EXIT_PROBLEMS, *,
                 usage: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.usage = usage
