"""Coverage-guided fuzz harness (atheris) for handoff_codec.

    python fuzz/harness.py [libFuzzer flags] [CORPUS_DIR ...]

The first byte of each input picks a target:

* readers (byte 0 even): the rest is summary text (wrapped in the default envelope half the
  time, so the fuzzer reaches the body quickly) given to ``loads`` in both
  modes, ``decode``, ``flatten`` (trust any and signed) and ``migrate_item``.
  Invariants: only DecodeError escapes ``loads``/``decode``; ``loads`` (whose
  single pass reads legacy forms itself) gives ``decode``'s items, or fails as
  it does; ``flatten`` and ``migrate_item`` raise nothing.
* encoder (byte 0 odd): the rest builds a list of JSON-compatible items. Invariants:
  ``loads(dumps(items)) == items`` in both modes (and signed), and the Agents
  SDK's own reader returns the items too, without the keys it strips
  (``provider_data``, ``created_by``, ``_agents_tool_title``,
  ``_agents_tool_description``: the ones 0.24 strips; other ``_agents_tool_*``
  keys it keeps).

A broken invariant raises AssertionError, which atheris reports as a crash
with the input that caused it.
"""

from __future__ import annotations

import contextlib
import copy
import math
import sys
from typing import Any

import atheris  # type: ignore[import-untyped]

with atheris.instrument_imports(include=["handoff_codec"]):
    # Import every module the targets reach, so that all are instrumented
    # (handoff_codec imports its readers lazily).
    from handoff_codec import Codec, DecodeError, EncodeError

    try:
        from handoff_codec.migrate import migrate_item
    except ImportError:  # pragma: no cover - written concurrently
        migrate_item = None  # type: ignore[assignment]

from agents.handoffs.history import _extract_nested_history_transcript

KEY = b"fuzz-key-0123456789abcdef0123456"
PLAIN = Codec(max_bytes=1 << 20)
SIGNED = Codec(key=KEY, max_bytes=1 << 20)
HEAD = f"{PLAIN.preamble}\n{PLAIN.start}\n"
TAIL = f"\n{PLAIN.end}"
KEYS = ("role", "content", "name", "type", "id", "status", "provider_data", "created_by",
        "_agents_tool_title", "_agents_tool_description", "arguments", "call_id", "output")
ROLES = ("user", "assistant", "system", "developer", "tool", "")


def _string(fdp: atheris.FuzzedDataProvider) -> str:
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        return str(fdp.PickValueInList(list(ROLES)))
    if kind == 1:  # any code point, lone surrogates too
        return str(fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 40)))
    return str(fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 40)))


def _value(fdp: atheris.FuzzedDataProvider, depth: int) -> Any:
    kind = fdp.ConsumeIntInRange(0, 8 if depth < 6 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-(2**63), 2**63)
    if kind == 3:
        number = fdp.ConsumeRegularFloat()
        return number if math.isfinite(number) else 0.5
    if kind in (4, 5):
        return _string(fdp)
    if kind == 6:
        return [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    return {_key(fdp): _value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))}


def _key(fdp: atheris.FuzzedDataProvider) -> str:
    return fdp.PickValueInList(list(KEYS)) if fdp.ConsumeBool() else _string(fdp)


def _item(fdp: atheris.FuzzedDataProvider) -> dict[str, Any]:
    if fdp.ConsumeIntInRange(0, 2) == 0:  # a chat message, the common case
        item: dict[str, Any] = {"role": fdp.PickValueInList(list(ROLES))}
        if fdp.ConsumeBool():
            item["name"] = _string(fdp)
        item["content"] = _string(fdp) if fdp.ConsumeIntInRange(0, 3) else _value(fdp, 1)
        return item
    return {_key(fdp): _value(fdp, 1) for _ in range(fdp.ConsumeIntInRange(0, 5))}


# The top-level keys that the SDK reader (0.24) drops from a JSON record:
# provider_data, and what strip_internal_input_item_metadata removes.
SDK_DROPS = frozenset({"provider_data", "created_by", "_agents_tool_title",
                       "_agents_tool_description"})


def _sdk_view(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in SDK_DROPS}


def _readers(data: bytes) -> None:
    # Byte 1 says whether to wrap; the rest is UTF-8, invalid bytes becoming
    # lone surrogates (a str can hold them, so a reader must cope).
    body = data[2:].decode("utf-8", "surrogateescape")
    text = HEAD + body + TAIL if data[1:2] == b"\x01" else body
    with contextlib.suppress(DecodeError):
        PLAIN.loads(text, strict=True)
    try:
        items = PLAIN.decode(text).items
    except DecodeError:
        items = None
    try:
        loaded = PLAIN.loads(text)
    except DecodeError:
        loaded = None
    # repr: NaN, which a legacy record may hold, equals no NaN
    assert repr(loaded) == repr(items), (text, loaded, items)
    message = {"role": "assistant", "content": text}
    PLAIN.flatten([message])
    SIGNED.flatten_report([message], trust="signed")
    if migrate_item is not None:
        migrate_item(message, codec=PLAIN)


def _encoder(fdp: atheris.FuzzedDataProvider) -> None:
    items = [_item(fdp) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    try:
        text = PLAIN.dumps(items)
    except EncodeError:
        return
    # Not json.loads(json.dumps(items)): that joins a surrogate pair held as two
    # code points ("\ud8bc\udf96") into one character (found by this harness).
    expected = copy.deepcopy(items)
    text.encode("utf-8")  # no raw surrogate: a file or a TEXT column holds it
    assert PLAIN.loads(text) == expected, (items, text)
    assert PLAIN.loads(text, strict=True) == expected, (items, text)
    signed = SIGNED.dumps(items)
    assert SIGNED.verify(signed) and SIGNED.loads(signed, strict=True) == expected
    sdk = _extract_nested_history_transcript({"role": "assistant", "content": text})
    assert sdk is not None
    assert [dict(i) for i in sdk] == [_sdk_view(i) for i in expected], (items, text, sdk)


def test_one_input(data: bytes) -> None:
    """Byte 0 picks the target: even for the readers, odd for the encoder."""
    if not data or data[0] % 2 == 0:
        _readers(data)
    else:
        _encoder(atheris.FuzzedDataProvider(data[1:]))


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
