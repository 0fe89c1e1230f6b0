#!/usr/bin/env python3
"""Conformance encoder for handoff-codec.

Reads a JSON array of items on stdin and writes the summary text on stdout.

Exit 0 with the text (UTF-8, no trailing newline), or exit 1 when the input
is not a JSON array or ``handoff_codec.dumps`` refuses an item (``EncodeError``).
"""

from __future__ import annotations

import json
import os
import sys

# This file is named like the package: keep its own folder off the import path.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import handoff_codec


def encode(data: bytes) -> tuple[int, bytes]:
    """(exit status, stdout) for stdin ``data``."""
    try:
        items = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return 1, b""
    if not isinstance(items, list):
        return 1, b""
    try:
        return 0, handoff_codec.dumps(items).encode("utf-8")
    except handoff_codec.EncodeError:
        return 1, b""


def main() -> int:
    code, out = encode(sys.stdin.buffer.read())
    sys.stdout.buffer.write(out)
    return code


if __name__ == "__main__":
    sys.exit(main())
