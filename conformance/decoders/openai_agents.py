#!/usr/bin/env python3
"""Conformance decoder that runs the reader of the installed openai-agents release.

It hands the summary to ``agents.handoffs.history._flatten_nested_history_messages``
as the content of an assistant message (or, when stdin is a JSON object, that
message as it is), the function every release from 0.6.0 on calls when it
nests a handoff. The release's own answer decides:

* exit 1 (refused) when the reader does not take the message for a summary
  (``_extract_nested_history_transcript`` gives None: the message comes back
  as it was);
* exit 0 with the items it returned otherwise.

The SDK reports no recoveries, so stdout is the bare JSON array.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")


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


def main() -> int:
    from agents.handoffs import history

    message = _message(sys.stdin.buffer.read())
    if message is None:
        return 1
    try:
        if history._extract_nested_history_transcript(message) is None:
            return 1
        items = history._flatten_nested_history_messages([message])
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(items, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
