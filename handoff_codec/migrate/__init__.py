"""Migrate stored items: the per-item rule, and the stores that hold them.

    >>> from handoff_codec.migrate import migrate_item, migrate_items
    >>> migrate_item({"role": "user", "content": "hi"}).status.value
    'not_summary'
    >>> [result.status.value for result in migrate_items([{"role": "user", "content": "hi"}])]
    ['not_summary']

``handoff_codec.migrate.stores`` rewrites whole stores (JSONL files, SQLite
session databases).
"""

from __future__ import annotations

from ._items import *  # noqa: F403  (the public names, listed in _items.__all__)
from ._items import __all__ as __all__
