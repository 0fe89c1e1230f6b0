"""``open_store``: the one way into the stores, for a path or a URL.

The backend comes from the registry of ``base`` (as alembic keeps an
implementation per dialect): a URL by its scheme (the SQL schemes open
``SQLAlchemySession`` tables, the Redis schemes ``RedisSession`` lists, and
another package may register more), a path by the kind of file it is (a JSONL
file or a ``SQLiteSession`` database, told apart by its first bytes). With
``encryption_key_env`` a SQLite file is opened as the SQL backend's store of
``EncryptedSession`` rows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import StoreError
from ._options import MigrateOptions
from ._urls import mask_url
from .base import (
    FileStore,
    Store,
    backend_for_file,
    backend_for_scheme,
    classify,
    is_unreachable,
    register_store,
    registered_schemes,
    url_scheme,
)
from .jsonl import JSONLFileStore, not_json_line
from .servers import Engine, RedisListStore, SQLAlchemyTableStore
from .sqlite import SQLiteFileStore, is_sqlite_file

# The registry's names, with the built-in backends (imported above) registered.
__all__ = ["FileStore", "JSONLFileStore", "RedisListStore", "SQLAlchemyTableStore",
           "SQLiteFileStore", "Store", "check_target", "file_kind", "is_unreachable", "open_store",
           "register_store", "registered_schemes", "url_scheme"]

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def _unsupported(text: str, scheme: str) -> StoreError:
    return StoreError(f"{mask_url(text)}: unsupported store URL scheme {scheme!r} "
                      f"(supported: {', '.join(registered_schemes())}, or a file path)")


def open_store(target: str | os.PathLike[str], options: MigrateOptions | None = None, *,
               client: Any = None, engine: Any = None) -> Store:
    """The store ``target`` names: a path (JSONL, SQLite) or a URL of a registered scheme.

    ``client`` is an open connection to use instead of one made from the URL
    (a ``redis.Redis``), ``engine`` an application's own SQLAlchemy ``Engine``
    for a SQL URL (an ``AsyncEngine``'s ``sync_engine``, used inside SQLAlchemy's
    ``greenlet_spawn``): its pool, TLS and ``connect_args`` are used as they are,
    never rebuilt from the URL, and it is never disposed here. Raises
    :class:`StoreError` for a missing file, a scheme no store is registered for,
    or a store that cannot be opened.
    """
    options = options or MigrateOptions()
    text = os.fspath(target)
    scheme = url_scheme(text)
    backend = backend_for_scheme(scheme) if scheme is not None else None
    if engine is not None:
        if client is not None:
            raise TypeError("open_store() takes client= or engine=, not both")
        if backend is None or not issubclass(backend, SQLAlchemyTableStore):
            raise TypeError("open_store(engine=...) is for a SQL URL")
        client = Engine(engine)
    if scheme is None:
        return _open_path(Path(text), options)
    if backend is None:
        raise _unsupported(text, scheme)
    return backend(text, options, client)


def check_target(target: str | os.PathLike[str], options: MigrateOptions | None = None
                 ) -> None:
    """Refuse (:class:`StoreError`), opening nothing, what cannot be the store ``target``.

    A path must name a SQLite database or a JSON Lines file: not a missing
    file, a directory, or (with ``format`` ``auto``) a text file whose first
    line is not JSON. A URL must have a registered scheme, and only query
    options its driver takes (each backend checks its own URLs; a missing
    driver is named with its extra). Nothing is connected to and nothing is
    written: :func:`open_store` and the run find the rest (tables, locks).
    """
    options = options or MigrateOptions()
    text = os.fspath(target)
    scheme = url_scheme(text)
    if scheme is None:
        path = Path(text)
        if file_kind(path, options.format) == "jsonl" and options.format == "auto":
            line = not_json_line(path)
            if line is not None:
                raise StoreError(f"{path}: a text file, not JSON Lines (line {line} is not "
                                 "JSON): give a JSONL file of items, a SQLite database or a "
                                 "store URL (--format jsonl reads it as JSON Lines all the "
                                 "same)")
        return
    backend = backend_for_scheme(scheme)
    if backend is None:
        raise _unsupported(text, scheme)
    try:
        backend.check_url(text)
    except ImportError as exc:
        raise classify(exc, text) from None


def file_kind(path: Path, requested: str = "auto") -> str:
    """``jsonl`` or ``sqlite`` for an existing file; StoreError when it is neither."""
    if not os.path.lexists(path):
        raise StoreError(f"{path}: no such file")
    if not path.exists():
        raise StoreError(f"{path}: no such file (a symbolic link to nothing)")
    if path.is_dir():
        raise StoreError(f"{path}: is a directory")
    if requested == "sqlite":
        return requested
    if is_sqlite_file(path):
        if requested == "jsonl":
            raise StoreError(f"{path}: is a SQLite database, not a JSONL file")
        return "sqlite"
    if requested == "auto" and path.suffix.lower() in SQLITE_SUFFIXES:
        raise StoreError(f"{path}: not a SQLite database")
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    if b"\x00" in head:
        raise StoreError(f"{path}: neither a SQLite database nor a JSONL file")
    return "jsonl"


def _open_path(path: Path, options: MigrateOptions) -> Store:
    kind = file_kind(path, options.format)
    if options.encryption_key_env is not None:
        if kind != "sqlite":
            raise StoreError(f"{path}: --encryption-key-env needs a SQLite database or a "
                             "server store URL; this is a JSONL file")
        # EncryptedSession(SQLiteSession(...)) rows: the SQL backend reads the same file.
        return SQLiteFileStore(path, options).through_url()
    backend = backend_for_file(kind)
    if backend is None:  # pragma: no cover - both kinds are registered below
        raise StoreError(f"{path}: no store is registered for {kind} files")
    return backend(str(path), options)
