"""Migrate stored items: the per-item rule, and the stores that hold them.

    >>> from handoff_codec.migrate import migrate_items
    >>> migrate_items([{"role": "user", "content": "hi"}]).status.value
    'not_summary'

``handoff_codec.migrate.stores`` rewrites whole stores (JSONL files, SQLite
session databases).
"""

from __future__ import annotations

from ._items import (
    MigrationResult,
    MigrationStatus,
    ValueMigration,
    migrate_item,
    migrate_items,
    migrate_value,
)

__all__ = [
    "MigrationResult",
    "MigrationStatus",
    "ValueMigration",
    "migrate_item",
    "migrate_items",
    "migrate_value",
]
