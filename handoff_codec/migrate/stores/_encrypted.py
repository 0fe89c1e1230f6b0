"""Rows of an ``EncryptedSession``: decrypt, migrate, re-encrypt, all in memory.

``EncryptedSession`` (openai-agents 0.24) stores each item as the envelope
``{"__enc__": 1, "v": 1, "kid": "hkdf-v1", "payload": <Fernet token>}`` in the
session it wraps, with a Fernet key derived per session by HKDF from the user's
key. This rule uses the SDK's own derivation and envelope test (through
``integrations.openai_agents_internals``, the one module that reaches the
SDK's private names), decrypts a
token, applies the per-row rule to the plaintext, and encrypts the new
plaintext *at the token's original timestamp*, so the SDK's TTL check expires
the item exactly when it would have. The plaintext goes through the one
per-row rule (``_rows.RowRule``), and the new token is spliced into the
envelope by the same splice. Only envelopes reach the store and the backup;
the items' own reasons are withheld, as they could quote plaintext, while the
rule's reasons for a row (such as "cannot decrypt: wrong key or corrupt
token") quote nothing secret and are given.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import StoreError
from ._protocol import Row
from ._rows import RowOutcome, RowRule, splice_field

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

    from ...format.codec import Codec

__all__ = ["EncryptedRule"]

_CACHED_SESSIONS = 256
NOT_ENVELOPE = "not an EncryptedSession envelope"
CANNOT_DECRYPT = "cannot decrypt: wrong key or corrupt token"


class EncryptedRule:
    """The per-row rule for ``EncryptedSession`` envelopes, with the user's key."""

    redacts = True

    def __init__(self, encryption_key: str, codec: Codec | None = None, *,
                 restore_empty: bool = False, accept_ambiguous: bool = False,
                 rule: RowRule | None = None) -> None:
        try:
            from cryptography.fernet import InvalidToken

            from ...integrations.openai_agents_internals import encryption

            sdk = encryption()
        except ImportError as exc:
            raise StoreError(f"encrypted sessions need openai-agents with its 'encrypt' extra "
                             f"(cryptography): {exc}") from exc
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
