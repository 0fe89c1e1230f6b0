#!/usr/bin/env python3
"""Conformance decoder for handoff-codec: summary on stdin, items (and recoveries) on stdout.

    python conformance/decoders/handoff_codec.py            # lenient: every known writer
    python conformance/decoders/handoff_codec.py --strict   # the current format only

Exit 0 with ``{"items": [...], "recoveries": [...]}`` on stdout, or exit 65
(the protocol's refusal) with ``{"error": {"line": L, "column": C, "reason":
R}}`` when the text is refused: it is not a summary (line and column null),
or it does not follow the format (``DecodeError``, with its place). stdin
that is a JSON object is a whole message; its content (a string or a list of
output_text parts) is read if the message is a summary, and refused if it is
not. Anything else this program does wrong is a crash (a traceback, exit 1),
never a refusal.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# This file is named like the package: keep its own folder off the import path.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import handoff_codec
from handoff_codec.format.content import as_text_message

REFUSED = 65  # the protocol's exit status for refused text (conformance/README.md)


class _NoSummary(Exception):
    """stdin holds no summary at all (the reason is the message)."""


def _text(data: bytes) -> str:
    """The summary text on stdin; _NoSummary when stdin holds none."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _NoSummary(f"not UTF-8 (invalid byte at offset {exc.start})") from None
    if not text.startswith("{"):
        return text
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not isinstance(message, dict):
        raise _NoSummary("a JSON value that is no message")
    message = dict(as_text_message(message))
    if not handoff_codec.format.default_codec.is_summary(message):
        raise _NoSummary("a message that is not a summary")
    content: str = message["content"]
    return content


def refuse(reason: str, line: int | None = None, column: int | None = None
           ) -> tuple[int, bytes]:
    """The protocol's refusal: exit 65, and the error object on stdout."""
    error = {"line": line, "column": column, "reason": reason}
    return REFUSED, json.dumps({"error": error}, ensure_ascii=False).encode("utf-8")


def decode(data: bytes, *, strict: bool = False) -> tuple[int, bytes]:
    """(exit status, stdout) for stdin ``data``, as the protocol wants them."""
    try:
        text = _text(data)
    except _NoSummary as exc:
        return refuse(str(exc))
    try:
        report = handoff_codec.decode(text, strict=strict)
    except handoff_codec.DecodeError as exc:
        return refuse(exc.msg, exc.line, exc.column)
    doc: dict[str, Any] = {
        "items": report.items,
        "recoveries": [{"line": r.line, "kind": str(r.kind), "lost": r.lost}
                       for r in report.recoveries],
    }
    return 0, json.dumps(doc, ensure_ascii=False).encode("utf-8")


def main() -> int:
    """One vector on stdin; or, with ``--batch``, a JSON array of inputs (str) on stdin and
    a JSON array of ``[status, stdout]`` on stdout, for conformance/matrix.py."""
    strict = "--strict" in sys.argv[1:]
    if "--batch" in sys.argv[1:]:
        inputs = json.load(sys.stdin)
        results = [decode(text.encode("utf-8"), strict=strict) for text in inputs]
        json.dump([[code, out.decode("utf-8")] for code, out in results], sys.stdout)
        return 0
    code, out = decode(sys.stdin.buffer.read(), strict=strict)
    sys.stdout.buffer.write(out)
    return code


if __name__ == "__main__":
    sys.exit(main())
