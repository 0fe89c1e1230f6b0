"""Authenticated summaries: an HMAC-SHA256 signature line, written and verified.

A signed summary carries one extra line, right after the start marker::

    For context, here is the conversation so far between the user and the previous agent:
    <CONVERSATION HISTORY>
    (signed hmac-sha256 5b0c...64 hex digits...)
    1. user: hello
    </CONVERSATION HISTORY>

The signature is HMAC-SHA256, under the codec's key, of ``DOMAIN`` followed by
the UTF-8 of the summary *without* the signature line: the preamble, both
markers and every record, exactly as written. Changing any byte of them, or of
the signature, makes verification fail.

Why there: the message stays an ordinary assistant message (valid Chat
Completions), the line reads to a model as a parenthetical note like
``(no previous turns recorded)``, and the Agents SDK's reader (0.20 to 0.24)
still reads the records unchanged. The SDK checks the preamble line, that the
content starts with ``START\\n`` and ends with ``\\nEND``, so the signature
cannot go on those lines or after the end marker. Inside the body it must come
*first*: the SDK joins an unnumbered line that follows a record to that record
(it would corrupt the last record), but a leading unnumbered line becomes a
record of its own, which it drops because it has no ``:`` and is not a bare
role. The line therefore contains no ``:``.
"""

from __future__ import annotations

import hashlib
import hmac

from . import grammar as _grammar

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Literal

    # What verify_text finds: the values of the flattening Reason of the same name.
    Verdict = Literal["verified", "unsigned", "bad signature"]

__all__ = ["DOMAIN", "sign_text", "split_signature", "verify_text"]

DOMAIN = b"handoff-codec signed summary v1\n"


def _mac(key: bytes, unsigned: str) -> str:
    data = DOMAIN + unsigned.encode("utf-8", "surrogatepass")
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _line_end(text: str, lines: int) -> int:
    """The offset just after the first ``lines`` lines of ``text``; -1 if it has fewer."""
    pos = 0
    for _ in range(lines):
        found = text.find("\n", pos)
        if found < 0:
            return -1
        pos = found + 1
    return pos


def sign_text(unsigned: str, key: bytes, head_lines: int = 2) -> str:
    """``unsigned`` with its signature line inserted after the start marker line.

    ``head_lines`` is the number of lines of the preamble and the start marker:
    2, or more when the marker spans lines.
    """
    head = _line_end(unsigned, head_lines)
    if head < 0:
        raise ValueError("the text has no line after its start marker")
    line = _grammar.signature_line(_mac(key, unsigned))
    return unsigned[:head] + line + unsigned[head:]


def split_signature(text: str, head_lines: int = 2) -> tuple[str, str | None]:
    """``(text without its signature line, hex signature)``; ``(text, None)`` if unsigned."""
    head = _line_end(text, head_lines)
    match = _grammar.terminal("_SIGNATURE").match(text, head) if head >= 0 else None
    if match is None:
        return text, None
    before, after = _grammar.signature_parts()
    digest = text[match.start() + len(before):match.end() - len(after)]
    return text[:head] + text[match.end():], digest


def verify_text(text: str, keys: Iterable[bytes], head_lines: int = 2) -> Verdict:
    """``"verified"`` if the signature of ``text`` verifies under one of ``keys``."""
    unsigned, signature = split_signature(text, head_lines)
    if signature is None:
        return "unsigned"
    verified = False
    for key in keys:  # every key is tried, so timing does not tell which matched
        verified |= hmac.compare_digest(_mac(key, unsigned), signature)
    return "verified" if verified else "bad signature"

