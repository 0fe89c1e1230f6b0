"""Rewrite legacy summary messages to the canonical current format, one item at a time.

    >>> from handoff_codec.migrate import migrate_item
    >>> migrate_item({"role": "user", "content": "hi"}).status
    <MigrationStatus.NOT_SUMMARY: 'not_summary'>

The rule for one item:

* not a summary message (``Codec.is_summary`` is false): left as it is, ``not_summary``;
* a summary the lenient reader cannot read, or whose canonical text would not
  read back as the same items: left as it is, ``untouched``, with the reason;
* a summary that two readings remain for (an ``ambiguous`` recovery: a line
  of content may be a turn of its own, or text may be a list):
  ``untouched``, unless ``accept_ambiguous=True`` rewrites it as read;
* a summary already in canonical form (``codec.dumps(items)`` equals its
  content): ``already_current``;
* otherwise a new item: the same keys and values, in the same order, with only
  ``content`` replaced by the canonical text: ``migrated``.

With ``restore_empty=True`` the rule also undoes empty-turn placeholders, with
:func:`handoff_codec.replay.restore_empty_report`: a turn inside a summary
whose whole text is a known placeholder is empty again in the canonical text
(so a canonical summary holding one is ``migrated``), and an item that is not
a summary but holds only a placeholder comes back emptied, ``restored``. A
turn that starts with a placeholder and goes on is listed in ``leaks``, never
cut.

Only top-level items are considered; a summary quoted inside another item's
content is data, not a message. Stores (JSONL files, SQLite session databases)
build on :func:`migrate_value`; see ``handoff_codec.migrate.stores``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, field_serializer

from ..format.errors import DecodeError, EncodeError
from ..format.placeholders import Leak, Restored, restore_empty_report
from ..format.report import Format, Recoveries, Recovery, RecoveryKind, lossless

if TYPE_CHECKING:
    from ..format.codec import Codec

__all__ = [
    "MigrationResult",
    "MigrationStatus",
    "ValueMigration",
    "migrate_item",
    "migrate_items",
    "migrate_value",
]


class MigrationStatus(str, Enum):
    """What the migration did with one item."""

    MIGRATED = "migrated"
    ALREADY_CURRENT = "already_current"
    UNTOUCHED = "untouched"
    NOT_SUMMARY = "not_summary"
    RESTORED = "restored"  # not a summary; its placeholder text emptied (restore_empty)


class MigrationResult(BaseModel):
    """The outcome for one item.

    ``item`` is the item to store: the very object passed in unless ``status``
    is ``migrated``, in which case it is a shallow copy with a new ``content``
    (or ``restored``: a shallow copy with its placeholder emptied).
    ``format`` and ``recoveries`` come from the reader's report when the
    summary could be read; ``reason`` explains an ``untouched`` result.
    ``restored`` and ``leaks`` (``restore_empty`` only) index the summary's
    turns, or are index 0 for an item that is not a summary.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    status: MigrationStatus
    item: Any
    reason: str | None = None
    format: Format | None = None
    recoveries: Sequence[Recovery] = []  # built lazily (see _report.Recoveries)
    key_order_only: bool = False  # migrated, and the only change is sorted JSON keys
    restored: tuple[Restored, ...] = ()  # turns whose placeholder was emptied
    leaks: tuple[Leak, ...] = ()  # turns that start with a placeholder and go on

    @field_serializer("recoveries")
    def _recoveries_as_list(self, recoveries: Sequence[Recovery]) -> list[Recovery]:
        return list(recoveries)

    @property
    def changed(self) -> bool:
        """True when ``item`` differs from the input and must be written back."""
        return self.status in (MigrationStatus.MIGRATED, MigrationStatus.RESTORED)

    @property
    def is_summary(self) -> bool:
        """True when the input was a summary message (read or not)."""
        return self.status not in (MigrationStatus.NOT_SUMMARY, MigrationStatus.RESTORED)

    @property
    def lossless(self) -> bool:
        """False when the reader noted information the old writer had already lost."""
        return lossless(self.recoveries)


def _default_codec() -> Codec:
    from ..format.codec import default_codec

    return default_codec


def _result(status: MigrationStatus, item: Any, **fields: Any) -> MigrationResult:
    # Every field is built here from trusted values; skip validation on the hot path.
    fields.setdefault("reason", None)
    fields.setdefault("format", None)
    fields.setdefault("recoveries", [])
    fields.setdefault("key_order_only", False)
    fields.setdefault("restored", ())
    fields.setdefault("leaks", ())
    return MigrationResult.model_construct(status=status, item=item, **fields)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc) or type(exc).__name__


def _restore_message(item: Mapping[str, Any]) -> MigrationResult:
    """An item that is not a summary, with its placeholder text emptied if it is one."""
    found = restore_empty_report([item])
    if found.restored:
        return _result(MigrationStatus.RESTORED, found.items[0], restored=found.restored,
                       leaks=found.leaks)
    return _result(MigrationStatus.NOT_SUMMARY, item, leaks=found.leaks)


def _ambiguous_lines(recoveries: Sequence[Recovery] | Recoveries) -> list[int]:
    """The lines of the ``ambiguous`` recoveries (building none when there is none)."""
    if isinstance(recoveries, Recoveries) and RecoveryKind.AMBIGUOUS not in recoveries.kinds():
        return []
    return [r.line for r in recoveries if r.kind is RecoveryKind.AMBIGUOUS]


def migrate_item(item: Any, *, codec: Codec | None = None, restore_empty: bool = False,
                 accept_ambiguous: bool = False) -> MigrationResult:
    """Migrate one top-level item (see the module docstring for the rule)."""
    codec = codec or _default_codec()
    if not isinstance(item, Mapping):
        return _result(MigrationStatus.NOT_SUMMARY, item)
    if not codec.is_summary(item):
        if restore_empty:
            return _restore_message(item)
        return _result(MigrationStatus.NOT_SUMMARY, item)
    content: str = item["content"]
    try:
        decoded = codec.decode(content)
    except (DecodeError, RecursionError) as exc:
        return _result(MigrationStatus.UNTOUCHED, item,
                       reason=f"summary could not be read: {_error_text(exc)}")
    except Exception as exc:  # a reader bug must not abort a whole store's migration
        return _result(MigrationStatus.UNTOUCHED, item,
                       reason=f"reader failed: {type(exc).__name__}: {_error_text(exc)}")
    report: dict[str, Any] = {"format": decoded.format,
                              "recoveries": decoded.recoveries}
    if not decoded.complete:
        lines = [r.line for r in decoded.recoveries if r.kind is RecoveryKind.UNRECOGNISED]
        return _result(MigrationStatus.UNTOUCHED, item, reason="line(s) "
                       f"{', '.join(map(str, lines))} belong to no record; rewriting would "
                       "drop them", **report)
    ambiguous = [] if accept_ambiguous else _ambiguous_lines(decoded.recoveries)
    if ambiguous:
        return _result(MigrationStatus.UNTOUCHED, item, reason="line(s) "
                       f"{', '.join(map(str, ambiguous))}: two readings of the text remain "
                       "(ambiguous), so the items read may not be the items written; "
                       "accept_ambiguous (--accept-ambiguous) rewrites it as "
                       "read", **report)
    items = decoded.items
    restored: tuple[Restored, ...] = ()
    if restore_empty:
        found = restore_empty_report(items)
        items, restored, report["leaks"] = found.items, found.restored, found.leaks
    try:
        canonical = codec.dumps(items)
    except (EncodeError, RecursionError) as exc:
        return _result(MigrationStatus.UNTOUCHED, item,
                       reason=f"recovered items cannot be written: {_error_text(exc)}", **report)
    if canonical == content:
        return _result(MigrationStatus.ALREADY_CURRENT, item, **report)
    # Safety net: the new text must read back, strictly, as exactly the items the
    # old text held; then a second run finds it already current (idempotence).
    try:
        check = codec.loads(canonical, strict=True)  # decode(...).items, no report built
    except (DecodeError, RecursionError) as exc:
        check, error = None, _error_text(exc)
    else:
        error = "it reads back as different items"
    if check != items:
        return _result(MigrationStatus.UNTOUCHED, item,
                       reason=f"canonical text does not round-trip: {error}", **report)
    migrated = dict(item)
    migrated["content"] = canonical
    reordered = (not restored and decoded.format is Format.CURRENT
                 and _only_key_order(content, canonical))
    return _result(MigrationStatus.MIGRATED, migrated, key_order_only=reordered,
                   restored=restored, **report)


def _only_key_order(old: str, new: str) -> bool:
    """Whether ``new`` differs from ``old`` only in the key order of JSON records.

    Summaries written by openai-agents 0.20 and later keep the keys of their
    JSON records in insertion order; the canonical form sorts them.
    """
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) != len(new_lines):
        return False
    for before, after in zip(old_lines, new_lines, strict=True):
        if before == after:
            continue
        head, _, old_json = before.partition(" ")
        new_head, _, new_json = after.partition(" ")
        if head != new_head or not head.endswith("."):
            return False
        try:
            old_value, new_value = json.loads(old_json), json.loads(new_json)
        except ValueError:
            return False
        if not isinstance(old_value, dict) or old_value != new_value \
                or json.dumps(old_value, sort_keys=True) != json.dumps(new_value,
                                                                      sort_keys=True):
            return False
    return True


def migrate_items(
    items: Iterable[Any], *, codec: Codec | None = None, restore_empty: bool = False,
    accept_ambiguous: bool = False,
) -> Iterator[MigrationResult]:
    """One :class:`MigrationResult` per item, lazily: nothing is read ahead."""
    codec = codec or _default_codec()
    for item in items:
        yield migrate_item(item, codec=codec, restore_empty=restore_empty,
                           accept_ambiguous=accept_ambiguous)


class ValueMigration:
    """The results for one stored JSON value: an item, or a JSON list of items.

    ``value`` is what to store (the input object when nothing changed).
    """

    __slots__ = ("results", "value")

    def __init__(self, value: Any, results: list[MigrationResult]) -> None:
        self.value = value
        self.results = results

    @property
    def changed(self) -> bool:
        return any(r.changed for r in self.results)


def migrate_value(value: Any, *, codec: Codec | None = None, restore_empty: bool = False,
                  accept_ambiguous: bool = False) -> ValueMigration:
    """Migrate a stored JSON value: one item, or a list whose elements are items."""
    codec = codec or _default_codec()
    if isinstance(value, list):
        results = [migrate_item(element, codec=codec, restore_empty=restore_empty,
                                accept_ambiguous=accept_ambiguous) for element in value]
        if any(r.changed for r in results):
            return ValueMigration([r.item for r in results], results)
        return ValueMigration(value, results)
    result = migrate_item(value, codec=codec, restore_empty=restore_empty,
                          accept_ambiguous=accept_ambiguous)
    return ValueMigration(result.item, [result])
