#!/usr/bin/env python3
"""Conformance decoder for handoff-codec: summary on stdin, items (and recoveries) on stdout.

    python conformance/decoders/handoff_codec.py            # lenient: every known writer
    python conformance/decoders/handoff_codec.py --strict   # the current format only

Exit 0 with ``{"items": [...], "recoveries": [...]}`` on stdout, or exit 1
when the text is refused: it is not a summary, or it does not follow the
format (``DecodeError``). stdin that is a JSON object is a whole message; its
content (a string or a list of output_text parts) is read if the message is a
summary, and refused if it is not.
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


def _text(data: bytes) -> str | None:
    """The summary text on stdin, or None when stdin holds no summary."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.startswith("{"):
        return text
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not isinstance(message, dict):
        return None
    message = dict(as_text_message(message))
    if not handoff_codec.format.default_codec.is_summary(message):
        return None
    content: str = message["content"]
    return content


def decode(data: bytes, *, strict: bool = False) -> tuple[int, bytes]:
    """(exit status, stdout) for stdin ``data``, as the protocol wants them."""
    text = _text(data)
    if text is None:
        return 1, b""
    try:
        report = handoff_codec.decode(text, strict=strict)
    except handoff_codec.DecodeError:
        return 1, b""
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
