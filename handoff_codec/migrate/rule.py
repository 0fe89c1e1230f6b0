"""The one migration rule: for one item, and for one stored row of items.

    >>> from handoff_codec.migrate import migrate_item
    >>> migrate_item({"role": "user", "content": "hi"}).status
    <MigrationStatus.NOT_SUMMARY: 'not_summary'>

The rule for one item (:func:`migrate_item`):

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
content is data, not a message.

The rule for one stored row (:class:`RowRule`: a row's bytes, one item or a
JSON list of items, to a :class:`RowOutcome`) applies the item rule to each
item and splices each changed string into the row's own bytes (``row_text``),
so the same bad row gets the same reason in every store (JSONL files, SQLite
files, SQLAlchemy tables, Redis lists). :class:`EncryptedRule` applies it to
the plaintext of an ``EncryptedSession`` envelope.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, field_serializer

from ..format.errors import DecodeError, EncodeError
from ..format.placeholders import Leak, Restored, content_key, restore_empty_report
from ..format.report import Decoded, Format, Recoveries, Recovery, RecoveryKind, lossless
from .row_text import (
    Prefilter,
    object_spans,
    parse_row,
    reads_as,
    splice,
    splice_field,
    string_literal,
    utf8_error,
)

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

    from ..format.codec import Codec

__all__ = [
    "EncryptedRule",
    "MigrationResult",
    "MigrationStatus",
    "Row",
    "RowOutcome",
    "RowRule",
    "RowStatus",
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


def _refusal(decoded: Decoded, accept_ambiguous: bool) -> str | None:
    """Why a summary read as ``decoded`` is not rewritten (None: it may be): lines that
    belong to no record, or (unless ``accept_ambiguous``) two readings of its text."""
    if not decoded.complete:
        lines = [r.line for r in decoded.recoveries if r.kind is RecoveryKind.UNRECOGNISED]
        return (f"line(s) {', '.join(map(str, lines))} belong to no record; rewriting would "
                "drop them")
    ambiguous = [] if accept_ambiguous else _ambiguous_lines(decoded.recoveries)
    if ambiguous:
        return (f"line(s) {', '.join(map(str, ambiguous))}: two readings of the text remain "
                "(ambiguous), so the items read may not be the items written; "
                "accept_ambiguous (--accept-ambiguous) rewrites it as read")
    return None


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
    refusal = _refusal(decoded, accept_ambiguous)
    if refusal is not None:
        return _result(MigrationStatus.UNTOUCHED, item, reason=refusal, **report)
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


# -- the rule for one stored row --------------------------------------------------------


# Row is made once per stored row: a named tuple, immutable like a frozen dataclass and
# several times cheaper to build.
class Row(NamedTuple):
    """One stored item: its key in the store, its session and its raw bytes (None: a NULL
    cell, which no rule reads: it is reported and left as it is)."""

    key: tuple[Any, ...]
    session_id: str
    value: bytes | None


class RowStatus(str, Enum):
    """What the rule does with one stored row."""

    UNCHANGED = "unchanged"  # kept: nothing in it changes (or it cannot hold a summary)
    MIGRATED = "migrated"  # to be written: ``new`` holds its bytes
    REFUSED = "refused"  # something in it would change, but the row cannot be rewritten
    INVALID = "invalid"  # not UTF-8, not JSON, cannot be decrypted: left as it is


@dataclass(frozen=True)
class RowOutcome:
    """The rule's result for one row.

    ``results`` are the items read (nothing when the row was not decoded),
    ``rewrite`` which of them the new bytes change; ``reason`` says why a row
    is refused or invalid. ``withheld``: the items' own reasons and texts may
    quote plaintext (an encrypted row), so reports leave them out.
    ``unreadable``: the row could not be read at all (cannot decrypt), so a
    run records no progress past it.
    """

    status: RowStatus
    new: bytes | None = None
    reason: str | None = None
    results: tuple[MigrationResult, ...] = ()
    rewrite: tuple[bool, ...] = ()
    is_list: bool = False
    decoded: bool = False
    withheld: bool = False
    unreadable: bool = False

    @classmethod
    def invalid(cls, reason: str, *, unreadable: bool = False) -> RowOutcome:
        return cls(RowStatus.INVALID, reason=reason, unreadable=unreadable)

    def refused(self, reason: str) -> RowOutcome:
        """This outcome, its rewrite refused for ``reason``."""
        return replace(self, status=RowStatus.REFUSED, new=None, reason=reason)


UNCHANGED_ROW = RowOutcome(RowStatus.UNCHANGED)  # not decoded: nothing to count but the scan
# A NULL cell: no item to read; reported (untouched) and left as it is, never a crash.
NULL_ROW = RowOutcome.invalid("message_data is NULL")


def _same(new_text: str, expected: Any) -> bool:
    """Whether ``new_text`` reads back as ``expected`` (NaN counts as equal to itself)."""
    try:
        value = json.loads(new_text)
    except (ValueError, RecursionError):
        return False
    if value == expected:
        return True
    try:
        return json.dumps(value) == json.dumps(expected)
    except (ValueError, RecursionError):
        return False


def _changed_field(result: MigrationResult) -> str:
    """The key whose value a changed item changes: ``content``, or a tool output's ``output``."""
    if result.status is MigrationStatus.RESTORED:
        return content_key(result.item) or "content"
    return "content"


class RowRule:
    """The per-row rule every store applies: a row's bytes to a :class:`RowOutcome`.

    Only rows whose bytes may hold a summary (or, with ``restore_empty``, a
    placeholder) are decoded. A changed row is the old row's text with only
    the changed strings spliced in, and must read back as exactly the migrated
    items; otherwise it is refused. ``legacy_only`` leaves alone the rewrites
    that would only sort the JSON keys of a current summary; ``accept_ambiguous``
    rewrites, as read, the summaries whose split is ambiguous (see ``migrate_item``).
    """

    def __init__(self, codec: Codec | None = None, *, restore_empty: bool = False,
                 legacy_only: bool = False, accept_ambiguous: bool = False) -> None:
        self.codec = codec or _default_codec()
        self.restore_empty = restore_empty
        self.legacy_only = legacy_only
        self.accept_ambiguous = accept_ambiguous  # passed on to migrate_value
        self.prefilter = Prefilter(self.codec, restore_empty=restore_empty)

    def wanted(self, result: MigrationResult) -> bool:
        """Whether to write ``result``: every change, or with ``legacy_only`` every change
        that does more than sort the JSON keys of a summary already current."""
        return result.changed and not (self.legacy_only and result.key_order_only)

    def __call__(self, raw: bytes | None) -> RowOutcome:
        if raw is None:
            return NULL_ROW
        prefilter = self.prefilter
        summary = prefilter.may_hold_summary(raw)
        if not summary and not prefilter.may_hold_placeholder(raw):
            if not raw.isascii():
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    return RowOutcome.invalid(utf8_error(exc))
            return UNCHANGED_ROW
        if not prefilter.restore_empty:  # the usual row, an object: read in one pass
            try:
                found = object_spans(decoded := raw.decode("utf-8"))
            except UnicodeDecodeError:
                found = None
            if found is not None:
                return self._object(*found, decoded)
        value, text, error = parse_row(raw)
        if error is not None or text is None:
            if summary or text is None:  # a row that cannot hold a summary need not be JSON
                return RowOutcome.invalid(error or "unreadable")
            return UNCHANGED_ROW
        return self.apply(value, text)

    def _object(self, value: dict[str, Any], span: tuple[int, int], text: str) -> RowOutcome:
        """:meth:`apply` for an object row read by ``object_spans`` (no ``restore_empty``)."""
        result = migrate_item(value, codec=self.codec, accept_ambiguous=self.accept_ambiguous)
        wanted = self.wanted(result)
        outcome = RowOutcome(RowStatus.UNCHANGED, results=(result,), rewrite=(wanted,),
                             decoded=True)
        if not wanted:
            return outcome
        if span == (0, 0):
            return outcome.refused("cannot be rewritten in place: the summary's content "
                                   "could not be located in the row's text")
        start, end = span
        content = result.item["content"]
        literal = string_literal(content, text[start:end])
        # The row read as ``value`` with its content's literal at [start, end): with only
        # that literal replaced, it reads as the migrated item exactly when the new literal
        # reads as the new content and ends where it ends (the json module's scanner).
        if not reads_as(literal, content):
            return outcome.refused("cannot be rewritten in place: the new row would not read "
                                   "back as the migrated items")
        new_text = "".join((text[:start], literal, text[end:]))
        return RowOutcome(RowStatus.MIGRATED, new=new_text.encode("utf-8"), results=(result,),
                          rewrite=(True,), decoded=True)

    def text(self, text: str) -> RowOutcome:
        """The rule for a row already decoded to text (an encrypted row's plaintext)."""
        value, _, error = parse_row(text.encode("utf-8", "surrogatepass"))
        if error is not None:
            return RowOutcome.invalid(error)
        return self.apply(value, text)

    def apply(self, value: Any, text: str) -> RowOutcome:
        """The rule for a row's JSON ``value``, read from ``text``."""
        # The item-level rule: a summary read with an ``ambiguous`` recovery is left
        # untouched (with its reason) unless ``accept_ambiguous``.
        results = migrate_value(value, codec=self.codec, restore_empty=self.restore_empty,
                                accept_ambiguous=self.accept_ambiguous).results
        is_list = isinstance(value, list)
        rewrite = [self.wanted(result) for result in results]
        outcome = RowOutcome(RowStatus.UNCHANGED, results=tuple(results),
                             rewrite=tuple(rewrite), is_list=is_list, decoded=True)
        if not any(rewrite):
            return outcome
        fields = [_changed_field(result) for result in results]
        try:
            new_text = splice(text, is_list, fields, [
                result.item[field] if wanted else None
                for result, field, wanted in zip(results, fields, rewrite, strict=True)])
        except (ValueError, RecursionError) as exc:
            return outcome.refused(f"cannot be rewritten in place: {exc}")
        if is_list:
            expected: Any = [r.item if w else v for r, w, v in zip(results, rewrite, value,
                                                                      strict=True)]
        else:
            expected = results[0].item
        if not _same(new_text, expected):
            return outcome.refused("cannot be rewritten in place: the new row would not read "
                                   "back as the migrated items")
        return replace(outcome, status=RowStatus.MIGRATED, new=new_text.encode("utf-8"))


# -- the rule for one EncryptedSession row ----------------------------------------------

_CACHED_SESSIONS = 256
NOT_ENVELOPE = "not an EncryptedSession envelope"
CANNOT_DECRYPT = "cannot decrypt: wrong key or corrupt token"


class EncryptedRule:
    """The per-row rule for ``EncryptedSession`` envelopes, with the user's key.

    ``EncryptedSession`` (openai-agents 0.24) stores each item as the envelope
    ``{"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": <Fernet token>}``, with a
    Fernet key derived per session by HKDF from the user's key. This rule uses the
    SDK's own derivation and envelope test (through
    ``integrations.openai_agents_internals``, the one module that reaches the SDK's
    private names), decrypts a token, applies :class:`RowRule` to the plaintext, and
    encrypts the new plaintext *at the token's original timestamp*, so the SDK's TTL
    check expires the item exactly when it would have; the new token is spliced into
    the envelope. Only envelopes reach the store and the backup; the items' own
    reasons are withheld, as they could quote plaintext, while the rule's reasons for
    a row (such as "cannot decrypt: wrong key or corrupt token") quote nothing secret.
    Raises ``ImportError`` when openai-agents or its ``encrypt`` extra is missing.
    """

    redacts = True

    def __init__(self, encryption_key: str, codec: Codec | None = None, *,
                 restore_empty: bool = False, accept_ambiguous: bool = False,
                 rule: RowRule | None = None) -> None:
        try:
            from cryptography.fernet import InvalidToken

            from ..integrations.openai_agents_internals import encryption

            sdk = encryption()
        except ImportError as exc:
            raise ImportError(f"encrypted sessions need openai-agents with its 'encrypt' "
                              f"extra (cryptography): {exc}", name=exc.name) from exc
        self._sdk = sdk
        self._invalid_token = InvalidToken
        self._master = sdk.master_key(encryption_key)
        self._rule = rule or RowRule(codec, restore_empty=restore_empty,
                                     accept_ambiguous=accept_ambiguous)
        self._ciphers: OrderedDict[str, Fernet] = OrderedDict()
        self._fixed: Fernet | None = None

    @classmethod
    def for_cipher(cls, cipher: Fernet, codec: Codec | None = None) -> EncryptedRule:
        """The rule for one session whose derived Fernet cipher is known (read-repair)."""
        rule = cls("unused", codec)
        rule._fixed = cipher
        return rule

    def _cipher(self, session_id: str) -> Fernet:
        if self._fixed is not None:
            return self._fixed
        cipher = self._ciphers.get(session_id)
        if cipher is None:
            cipher = self._sdk.session_cipher(self._master, session_id)
            self._ciphers[session_id] = cipher
            if len(self._ciphers) > _CACHED_SESSIONS:
                self._ciphers.popitem(last=False)
        else:
            self._ciphers.move_to_end(session_id)
        return cipher

    def __call__(self, row: Row) -> RowOutcome:
        if row.value is None:
            return NULL_ROW
        try:
            text = row.value.decode("utf-8")
            envelope: Any = json.loads(text)
        except (ValueError, RecursionError):
            return RowOutcome.invalid(NOT_ENVELOPE)
        if not self._sdk.is_envelope(envelope):
            return RowOutcome.invalid(NOT_ENVELOPE)
        cipher = self._cipher(row.session_id)
        try:
            token = str(envelope["payload"]).encode("utf-8")
            timestamp = cipher.extract_timestamp(token)
            plaintext = cipher.decrypt(token).decode("utf-8")
        except (self._invalid_token, UnicodeDecodeError):
            return RowOutcome.invalid(CANNOT_DECRYPT, unreadable=True)
        outcome = replace(self._rule.text(plaintext), withheld=True)
        if outcome.new is None:
            return outcome
        new_token = cipher.encrypt_at_time(outcome.new, timestamp).decode("ascii")
        try:
            new_row = splice_field(text, "payload", new_token)
        except (ValueError, RecursionError) as exc:
            return outcome.refused(f"cannot be rewritten in place: {exc}")
        return replace(outcome, new=new_row.encode("utf-8"))
