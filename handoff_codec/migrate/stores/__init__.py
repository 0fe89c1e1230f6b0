"""Migrating whole stores: JSONL files, SQLite session databases and server stores.

:func:`open_store` (``base``) is the one way in, for a path or a URL: it finds the backend
(one :class:`Store` class per kind of store, in a module of its own, registered for its URL
schemes or kind of file) and builds it with the one :class:`MigrateOptions` object. Every
backend's ``migrate``, ``restore`` and ``forget`` return a :class:`StoreResult` (``report``);
what they raise is in ``errors``. Every store applies ``handoff_codec.migrate.RowRule``.

    >>> from handoff_codec.migrate.stores import MigrateOptions, open_store
    >>> open_store("examples/sessions.db", MigrateOptions(dry_run=True)).migrate().migrated
    5
"""

# ruff: noqa: F403, F405  (the backends' public names, listed in each module's __all__)
from ._renamed import __getattr__ as __getattr__  # 0.2.0.dev0's names, with a warning
from ._state import check_state_dir, writable_dir
from ._urls import mask_url, scrub, url_scheme
from .backup import *
from .base import *
from .errors import *
from .jsonl import *
from .online import *
from .options import *
from .redis import *
from .report import *
from .row_access import *
from .sqlalchemy import *
from .sqlite_file import *

__all__ = [
    "BackupRestoreReport", "BackupWriter", "Change", "ChangedRow", "Checkpoint", "FileStore",
    "ForgetReport", "JSONLFileStore", "LeakRow", "MigrateOptions", "OnlineStore",
    "PlaceholderReport", "Progress", "ProgressFactory", "RedisListStore", "RowAccess",
    "SQLAlchemyTableStore", "SQLiteFileStore", "ServerReport", "Shard", "StoppedRun", "Store",
    "StoreError", "StoreRefusal", "StoreReport", "StoreResult", "StoreUnreachable", "UntouchedRow",
    "check_state_dir", "check_target", "engine_url", "file_kind", "is_unreachable", "mask_url",
    "named_backup_files", "open_store", "read_backup", "register_store", "registered_schemes",
    "rewrite_redis_session", "scrub", "stop_when_written", "stopped_run", "url_scheme",
    "writable_dir"]
