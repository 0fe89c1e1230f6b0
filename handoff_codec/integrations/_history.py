"""Writing a handoff's history without ever failing: summaries, forwarded items, a report.

``dumps`` is strict: it refuses what a reader would refuse. A handoff must not
fail because of its history, so the integrations (:mod:`handoff_codec.integrations.openai_agents`)
write through :class:`HistoryWriter`, which turns every refusal into a
fallback and records it in a :class:`HandoffReport`:

* ``stringified``: an item holding a value that is not JSON (an object, a
  set, bytes...) is written with ``str(value)`` in its place, and a key that
  is not a string as JSON spells it (``1`` as "1", ``True`` as "true"), as the
  Agents SDK's writer does (``json.dumps(default=str)``).
* ``forwarded``: an item that cannot be written even so (NaN or infinity,
  nested deeper than ``max_depth``, a cycle, or alone larger than
  ``max_bytes``) is forwarded verbatim (but for ``str(value)`` of values
  that are not JSON) as a real input item at its place.
* ``split``: a summary that reaches ``max_records`` records or ``max_bytes``
  bytes is closed and the next items go into a new summary message.
* ``media``: a message carrying an image, file or audio part is forwarded
  verbatim at its place (the next model sees the image itself); the summary
  holds a one-line reference, ``(image forwarded as item 4)``, where 4 is the
  item's 1-based position in the next agent's input, with the digest of the
  forwarded item (``forwarded_sha256``) by which the next handoff knows it.
* ``unexpanded`` / ``unreadable``: an earlier summary that reading would make
  lose a line, or that cannot be read, is kept as a message (see
  ``Codec.flatten(on_loss="keep")``).
* ``untrusted``: with ``trust="signed"``, an earlier summary whose signature
  does not verify (unsigned, or signed under no key of the codec) is
  forwarded verbatim at its place, the ordinary assistant message it is:
  never expanded, and never written into a new (signed) summary.
* ``wrappers``: the Agents SDK's conversation-history wrappers cannot be the
  markers of a ``Codec`` (an empty marker, or an end marker with a line shaped
  like a record before its last line); the default markers are written.
* ``internal_error``: anything else that goes wrong; the integration falls
  back to the SDK's own nesting.

Every kind but ``media`` is a degradation: the integration logs one warning
per handoff on the ``handoff_codec`` logger.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..format import grammar as _grammar
from ..format import limits
from ..format.errors import EncodeError
from ..format.write import encode_records

if TYPE_CHECKING:
    from ..format.codec import Codec
    from ..format.flattening import Trust, TrustDecision

__all__ = ["Fallback", "FallbackKind", "HandoffReport", "HistoryWriter", "read_history"]

logger = logging.getLogger("handoff_codec")

Item = dict[str, Any]

# Content-part types that carry binary data or a file reference.
MEDIA_PARTS = {"input_image": "image", "input_file": "file", "input_audio": "audio"}
_DIGEST_KEY = "forwarded_sha256"


class FallbackKind(str, Enum):
    """What the writer did instead of failing (see the module docstring)."""

    STRINGIFIED = "stringified"
    FORWARDED = "forwarded"
    SPLIT = "split"
    MEDIA = "media"
    UNEXPANDED = "unexpanded"
    UNREADABLE = "unreadable"
    UNTRUSTED = "untrusted"
    WRAPPERS = "wrappers"
    INTERNAL_ERROR = "internal_error"


@dataclass(frozen=True)
class Fallback:
    """One fallback.

    ``index`` is the item's position in the transcript being nested (flattened
    history, then the run's items); for ``unexpanded``, ``unreadable`` and
    ``untrusted`` it is the summary message's position in the input history,
    and ``-1`` for ``wrappers`` and ``internal_error``.
    """

    kind: FallbackKind
    index: int
    detail: str


@dataclass(frozen=True)
class HandoffReport:
    """What one handoff's nesting did: the transcript size and every fallback."""

    transcript_items: int
    fallbacks: tuple[Fallback, ...] = ()

    @property
    def degraded(self) -> bool:
        """True when some fallback other than forwarding media happened."""
        return any(f.kind is not FallbackKind.MEDIA for f in self.fallbacks)

    def count(self, kind: FallbackKind) -> int:
        """How many fallbacks of ``kind`` happened."""
        return sum(f.kind is kind for f in self.fallbacks)

    @property
    def untrusted(self) -> int:
        """How many earlier summaries failed ``trust="signed"`` and were forwarded unexpanded."""
        return self.count(FallbackKind.UNTRUSTED)


ReportCallback = Callable[[HandoffReport], None]


def media_kinds(item: Mapping[str, Any]) -> list[str]:
    """``["image", ...]`` for a message whose list content has media parts, else ``[]``."""
    content = item.get("content")
    if not isinstance(item.get("role"), str) or not isinstance(content, list):
        return []
    kinds: list[str] = []
    for part in content:
        kind = MEDIA_PARTS.get(str(part.get("type"))) if isinstance(part, Mapping) else None
        if kind is not None and kind not in kinds:
            kinds.append(kind)
    return kinds


def media_digest(item: Mapping[str, Any]) -> str | None:
    """The first 16 hex digits of the SHA-256 of ``item`` as canonical JSON; None if unwritable.

    The identity of a forwarded media message: its reference in the summary
    carries it, so the next handoff drops the references it finds right
    before the very items they stand for, and nothing else.
    """
    try:
        text = json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          default=str)
    except (TypeError, ValueError, RecursionError):  # a cycle, keys that cannot be sorted
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def media_reference(item: Mapping[str, Any], kinds: Sequence[str], position: int,
                    digest: str | None) -> Item:
    """The summary entry that stands for media ``item`` forwarded as item ``position``.

    ``kinds`` are its :func:`media_kinds`, ``digest`` its :func:`media_digest`;
    ``position`` is 1-based, in the next agent's input.
    """
    entry: Item = {"role": item["role"],
                   "content": f"({' and '.join(kinds)} forwarded as item {position})"}
    if digest is not None:
        entry[_DIGEST_KEY] = digest
    return entry


def _reference_digest(item: Mapping[str, Any]) -> str | None:
    """The digest an entry written by :func:`media_reference` carries; None for any other."""
    digest = item.get(_DIGEST_KEY)
    if (set(item) != {"role", "content", _DIGEST_KEY} or not isinstance(digest, str)
            or not isinstance(item.get("content"), str)):
        return None
    return digest


def _key(key: Any) -> str:
    """A key as the SDK's writer (``json.dumps(default=str)``) writes it: ``True`` is "true"."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    return str(key)


def _jsonable(value: Any) -> Any:
    """``value`` with every non-JSON value replaced by ``str(value)``, as the SDK writes it."""
    if isinstance(value, Mapping):
        return {_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


class HistoryWriter:
    """Appends summaries and forwarded items to ``out``, recording every fallback.

    One writer serves one handoff; it never raises for an item.
    """

    def __init__(self, codec: Codec, out: list[Item]) -> None:
        self.codec = codec
        self.out = out
        self.fallbacks: list[Fallback] = []
        self._index = 0
        self._segment: list[Item] = []
        self._segment_bytes = 0
        self._held: list[Item] = []
        envelope = "\n".join((codec.preamble, codec.start, codec.end)) + "\n"
        self._envelope_bytes = limits.utf8_size(envelope) + (
            len(_grammar.signature_line("0" * 64)) if codec.key is not None else 0)

    def note(self, kind: FallbackKind, detail: str, index: int | None = None) -> None:
        """Record a fallback (for the current item unless ``index`` is given)."""
        self.fallbacks.append(Fallback(kind, self._index if index is None else index, detail))

    def note_decision(self, decision: TrustDecision) -> None:
        """Record a summary message that ``flatten`` kept unexpanded."""
        if decision.expanded:
            return
        if decision.reason in ("unsigned", "bad signature"):
            self.note(FallbackKind.UNTRUSTED, f"summary not verified ({decision.reason.value}); "
                      "forwarded as the message it is", decision.index)
            return
        kind = (FallbackKind.UNEXPANDED if decision.reason == "lossy"
                else FallbackKind.UNREADABLE)
        self.note(kind, f"summary kept as a message: {decision.detail}", decision.index)

    def add(self, item: Mapping[str, Any]) -> None:
        """Put ``item`` into the current summary, or forward it at its place."""
        kinds = media_kinds(item)
        if kinds:
            digest = media_digest(item)
            probe = media_reference(item, kinds, len(self.out) + 2 + len(self._held), digest)
            if self._segment_full(self._body_size(probe) or 0):
                self.flush()
            entry = media_reference(item, kinds, len(self.out) + 2 + len(self._held), digest)
            self._append(entry, self._body_size(entry))
            self._held.append(dict(item))
            self.note(FallbackKind.MEDIA, entry["content"])
        else:
            self._add_plain(item)
        self._index += 1

    def _add_plain(self, item: Mapping[str, Any]) -> None:
        written: Mapping[str, Any] = item
        size = self._body_size(item)
        if size is None:
            try:
                written = _jsonable(item)
            except RecursionError:
                written, size = item, None
            else:
                size = self._body_size(written)
                if size is not None:
                    self.note(FallbackKind.STRINGIFIED, "values or keys that are not JSON "
                              "written as str(value)")
        if size is not None and self._envelope_bytes + size > self.codec.max_bytes:
            size = None
            reason = f"alone larger than max_bytes={self.codec.max_bytes}"
        else:
            reason = ("not writable (NaN or infinity, a cycle, a surrogate pair as two code "
                      "points, or deeper than "
                      f"max_depth={self.codec.max_depth})")
        if size is None:
            self.note(FallbackKind.FORWARDED, reason + "; forwarded verbatim")
            self.flush(force=not self.out)
            self.out.append(dict(written))
            return
        self.flush_held()
        if self._segment_full(size):
            self.note(FallbackKind.SPLIT, "summary reached max_records or max_bytes; "
                      "a new summary starts here")
            self.flush()
        self._append(dict(written), size)

    def _body_size(self, item: Mapping[str, Any]) -> int | None:
        """Bytes of the record for ``item`` without its number, or None if unwritable."""
        try:
            (record,) = encode_records([item], self.codec.max_depth)
        except (EncodeError, RecursionError, ValueError):
            return None
        return limits.utf8_size(record) - 1  # "1. body\n" minus the number "1"

    def _segment_full(self, size: int) -> bool:
        count = len(self._segment) + 1
        total = self._envelope_bytes + self._segment_bytes + size + len(str(count)) + 1
        return bool(self._segment) and (
            count > self.codec.max_records or total > self.codec.max_bytes)

    def _append(self, item: Item, size: int | None) -> None:
        self._segment.append(item)
        self._segment_bytes += (size or 0) + len(str(len(self._segment))) + 1

    def forward(self, item: Mapping[str, Any]) -> int:
        """Forward ``item`` verbatim after the pending summary; its index in ``out``."""
        self.flush(force=not self.out)
        self.out.append(dict(item))
        self._index += 1
        return len(self.out) - 1

    def flush_held(self) -> None:
        """Close the summary that references held media, then forward the media."""
        if self._held:
            self.flush()

    def flush(self, *, force: bool = False) -> None:
        """Write the current summary (also an empty one if ``force``), then held media."""
        if self._segment or force:
            try:
                self.out.append(self.codec.summarize(self._segment))
            except (EncodeError, RecursionError, ValueError) as exc:  # pragma: no cover
                self.note(FallbackKind.FORWARDED, f"summary not writable ({exc}); its "
                          "items forwarded verbatim")
                self.out.extend(self._segment)
        self.out.extend(self._held)
        self._segment, self._segment_bytes, self._held = [], 0, []

    def report(self) -> HandoffReport:
        """The report of this handoff; logs one warning if it degraded."""
        report = HandoffReport(self._index, tuple(self.fallbacks))
        warn_if_degraded(report)
        return report


def warn_if_degraded(report: HandoffReport) -> None:
    """One warning on the ``handoff_codec`` logger when ``report`` is degraded."""
    if report.degraded:
        counts: dict[str, int] = {}
        for fallback in report.fallbacks:
            counts[fallback.kind.value] = counts.get(fallback.kind.value, 0) + 1
        logger.warning("handoff history written with fallbacks (%s); see HandoffReport",
                       ", ".join(f"{kind}: {n}" for kind, n in sorted(counts.items())))


def deliver(report: HandoffReport, on_report: ReportCallback | None) -> None:
    """Pass ``report`` to the caller's callback; a failing callback is logged, not raised."""
    if on_report is None:
        return
    try:
        on_report(report)
    except Exception:
        logger.exception("handoff_codec: the on_report callback raised")


def as_summary_message(item: Mapping[str, Any], codec: Codec) -> Mapping[str, Any]:
    """A summary message in the form the Agents SDK gives it on a resumed run, made plain.

    openai-agents 0.24 normalizes input items when a run resumes from a
    ``RunState``: an assistant message ``{"role", "content": str}`` becomes
    ``{"role", "content": [{"type": "output_text", "text": str}], "status":
    "completed"}``. A summary in that form is read as the plain message; every
    other item is returned as it is.
    """
    content = item.get("content")
    if (item.get("role") != "assistant" or not isinstance(content, list) or len(content) != 1
            or not set(item) <= {"role", "content", "status", "type"}
            or item.get("status", "completed") != "completed"
            or item.get("type", "message") != "message"):
        return item
    part = content[0]
    if (not isinstance(part, Mapping) or not set(part) <= {"type", "text", "annotations"}
            or part.get("type") != "output_text" or part.get("annotations")):
        return item
    plain = {"role": "assistant", "content": part.get("text")}
    return plain if codec.is_summary(plain) else item


def read_history(
    writer: HistoryWriter, history: Sequence[Mapping[str, Any]], trust: Trust, *,
    expanded_before: bool = False,
) -> list[tuple[Item, bool]]:
    """The items of ``history`` with its summary messages expanded, each with ``untrusted``.

    ``untrusted`` is True for a summary message that failed ``trust="signed"``:
    it goes to the next agent verbatim, never into a summary. Every kept
    summary message is recorded in ``writer``. The media references that an
    earlier handoff wrote are left out (see :func:`without_own_references`):
    only those read from a summary here, or any item when ``expanded_before``
    (the SDK's reader expanded the summaries before a history mapper is
    called, so which items were read from one is not known).
    """
    from ..format.flattening import Reason

    codec = writer.codec
    entries: list[tuple[Item, bool]] = []
    read: set[int] = set()  # positions in entries of items read from a summary
    for index, original in enumerate(history):
        report = codec.flatten_report([as_summary_message(original, codec)], trust=trust,
                                      on_loss="keep")
        if not report.decisions:  # not a summary message
            entries.append((report.items[0], False))
            continue
        decision = report.decisions[0].at(index)
        writer.note_decision(decision)
        if decision.expanded:
            read.update(range(len(entries), len(entries) + len(report.items)))
            entries.extend((item, False) for item in report.items)
        elif decision.reason in (Reason.UNSIGNED, Reason.BAD_SIGNATURE):
            entries.append((copy.deepcopy(dict(original)), True))
        else:
            entries.append((report.items[0], False))
    return without_own_references(entries, set(range(len(entries))) if expanded_before
                                  else read)


def without_own_references(entries: list[tuple[Item, bool]],
                           read: set[int]) -> list[tuple[Item, bool]]:
    """``entries`` without the media references that an earlier handoff wrote.

    The writer puts the references last in a summary and the media messages
    right after it, so, read back, a run of references is followed by the
    items they stand for, in order. A reference is dropped when it was read
    from a summary (its position is in ``read``) and carries the digest
    (:func:`media_digest`) of the item it is paired with: its own media,
    which follows. A message with the same words or keys that a client sent
    (not read from a summary), or a reference whose media is no longer there,
    stays a turn like any other.
    """
    kept: list[tuple[Item, bool]] = []
    index = 0
    while index < len(entries):
        end = index
        while (end < len(entries) and end in read
               and _reference_digest(entries[end][0]) is not None):
            end += 1
        if end == index:
            kept.append(entries[index])
            index += 1
            continue
        for offset in range(end - index):
            reference, media = index + offset, end + offset
            ours = media < len(entries) and media_kinds(entries[media][0]) and (
                _reference_digest(entries[reference][0]) == media_digest(entries[media][0]))
            if not ours:
                kept.append(entries[reference])
        index = end
    return kept
