#!/usr/bin/env python3
"""Conformance decoder that runs the reader of the installed openai-agents release.

It hands the summary to ``agents.handoffs.history._flatten_nested_history_messages``
as the content of an assistant message (or, when stdin is a JSON object, that
message as it is), the function every release from 0.6.0 on calls when it
nests a handoff. The release's own answer decides:

* a refusal (exit 65 with ``{"error": {"line": null, "column": null,
  "reason": ...}}``, the protocol's) when the reader does not take the
  message for a summary (``_extract_nested_history_transcript`` gives None:
  the message comes back as it was), or raises (the handoff then fails with
  that exception instead of giving items; the reason names it);
* exit 0 with the items it returned otherwise.

The SDK reports no recoveries, so stdout is the bare JSON array.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
REFUSED = 65  # the protocol's exit status for refused text (conformance/README.md)


def _refuse(reason: str) -> tuple[int, bytes, bytes]:
    error = {"line": None, "column": None, "reason": reason}
    return REFUSED, json.dumps({"error": error}).encode("utf-8"), b""


def _message(data: bytes) -> dict[str, Any] | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("{"):
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            message = None
        if isinstance(message, dict):
            return message
    return {"role": "assistant", "content": text}


def decode(data: bytes) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) for stdin ``data``, as the protocol wants them."""
    from agents.handoffs import history

    message = _message(data)
    if message is None:
        return _refuse("not UTF-8")
    try:
        if history._extract_nested_history_transcript(message) is None:
            return _refuse("not taken for a summary: the message is kept as it is")
        items = history._flatten_nested_history_messages([message])
    except Exception as exc:  # a reader that raises gives no items: the text is refused
        return _refuse(f"the reader raised {type(exc).__name__}: {exc}")
    return 0, json.dumps(items, ensure_ascii=False, default=str).encode("utf-8"), b""


def main() -> int:
    """One vector on stdin; or, with ``--batch``, a JSON array of inputs (str) on stdin and
    a JSON array of ``[status, stdout]`` on stdout, for conformance/matrix.py."""
    if "--batch" in sys.argv[1:]:
        inputs = json.load(sys.stdin)
        results = [decode(text.encode("utf-8")) for text in inputs]
        json.dump([[code, out.decode("utf-8")] for code, out, _ in results], sys.stdout)
        return 0
    code, out, err = decode(sys.stdin.buffer.read())
    sys.stdout.buffer.write(out)
    sys.stderr.buffer.write(err)
    return code


if __name__ == "__main__":
    sys.exit(main())
