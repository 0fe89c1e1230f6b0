"""Migrate stored items: the one rule (``rule``), and the stores that hold them (``stores``).

    >>> from handoff_codec.migrate import migrate_item, migrate_items
    >>> migrate_item({"role": "user", "content": "hi"}).status.value
    'not_summary'
    >>> [result.status.value for result in migrate_items([{"role": "user", "content": "hi"}])]
    ['not_summary']

:func:`migrate_item` is the rule for one item; :class:`RowRule` the rule for one
stored row (its bytes: one item or a JSON list of items), which every store
applies, and :class:`EncryptedRule` the same inside an ``EncryptedSession``
envelope. ``handoff_codec.migrate.stores`` rewrites whole stores (JSONL files,
SQLite session databases, SQL tables, Redis lists).
"""

from .rule import (
    EncryptedRule,
    MigrationResult,
    MigrationStatus,
    Row,
    RowOutcome,
    RowRule,
    RowStatus,
    ValueMigration,
    migrate_item,
    migrate_items,
    migrate_value,
)

__all__ = ["EncryptedRule", "MigrationResult", "MigrationStatus", "Row", "RowOutcome", "RowRule",
           "RowStatus", "ValueMigration", "migrate_item", "migrate_items", "migrate_value"]
