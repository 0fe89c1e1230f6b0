"""Summary texts for the reading tests, and one reading's whole outcome.

``outcome`` is what a read gives, as one comparable value: the items and the
whole report (format, recoveries, writers, unkept, the candidates' readings
and items), or the DecodeError's message, position, line, column, expected
and reason. The engine property test and the issue tests compare these.
"""

from __future__ import annotations

from typing import Any, Literal

import handoff_codec
from handoff_codec import Codec, DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE
from handoff_codec.format.report import Candidate

__all__ = ["AS_WRITTEN", "ENGINES", "HEAD", "LEGACY_HEAD", "SIGNATURE", "Engine", "as_written",
           "candidate_items", "doubts", "outcome", "summary"]

Engine = Literal["fast", "lark"]
ENGINES: tuple[Engine, ...] = ("fast", "lark")
HEAD = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n"
LEGACY_HEAD = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n"
SIGNATURE = "(signed hmac-sha256 " + "ab" * 32 + ")\n"


# How the readings of a flagged body as the raw writer wrote it begin (offered after the others).
AS_WRITTEN = "as openai-agents 0.6 to 0.17.0 wrote it, its records numbered 1, 2, 3 in order"


def as_written(decoded: handoff_codec.Decoded) -> list[Candidate]:
    """The readings of a flagged body as the raw 0.6 to 0.17.0 writer wrote it."""
    return [c for c in decoded.candidates if c.reading.startswith(AS_WRITTEN)]


def doubts(decoded: handoff_codec.Decoded) -> list[Candidate]:
    """The other readings but those (each of a doubt the text leaves), which come first."""
    found = [c for c in decoded.candidates if not c.reading.startswith(AS_WRITTEN)]
    assert decoded.candidates[:len(found)] == tuple(found)
    return found


def summary(*lines: str) -> str:
    """The body ``lines`` in the default envelope."""
    return "\n".join([DEFAULT_PREAMBLE, DEFAULT_START, *lines, DEFAULT_END])


def outcome(text: str, engine: Engine, *, strict: bool = False,
            codec: Codec = handoff_codec.format.default_codec) -> tuple[Any, ...]:
    """Everything one read of ``text`` gives, or everything its DecodeError says."""
    try:
        decoded = codec.decode(text, strict=strict, engine=engine)
    except DecodeError as exc:
        return ("error", exc.msg, exc.pos, exc.lineno, exc.colno, exc.expected, exc.reason)
    return ("decoded", decoded.items, decoded.format, list(decoded.recoveries),
            decoded.writers, decoded.unkept,
            [(candidate.reading, candidate_items(candidate)) for candidate in decoded.candidates])


def candidate_items(candidate: Candidate) -> Any:
    """A candidate's items, or the DecodeError reading them raised (they are read when first
    used: one that holds a JSON record deeper than max_depth cannot be read)."""
    try:
        return candidate.items
    except DecodeError as exc:  # compared between the engines
        return ("raised", exc.msg, exc.lineno, exc.colno, exc.reason)
