"""The store backends' base class, their registry, and :func:`open_store`, the one way in
(as alembic keeps one implementation class per dialect).

Every backend is one :class:`Store` subclass in a module of its own, registered
with :func:`register_store` for the URL schemes it opens (``postgresql``,
``redis``, ...) or the kind of file it reads (``sqlite``, ``jsonl``).
:func:`open_store` finds a backend only here: a URL by its scheme, a path by
the kind of file it is (a JSONL file or a ``SQLiteSession`` database, told
apart by its first bytes). A backend is built from its target and the one
:class:`~.options.MigrateOptions` object, and every action returns a
:class:`~.report.StoreResult`. ``handoff_codec.migrate.stores`` imports the
built-in backends, so they are registered::

    >>> from handoff_codec.migrate.stores import registered_schemes
    >>> registered_schemes()[:3]
    ['mariadb', 'mysql', 'postgres']
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ._files import is_sqlite_file
from ._urls import mask_url, url_scheme
from .errors import StoreError, classify
from .options import MigrateOptions
from .report import ForgetReport, StoreReport, StoreResult

if TYPE_CHECKING:
    from .row_access import RowAccess

__all__ = [
    "FileStore", "Store", "check_target", "file_kind", "open_store", "register_store",
    "registered_schemes",
]

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


class Store(ABC):
    """One backend: a kind of store, opened for one target with the run's options.

    ``schemes`` are the URL schemes it opens; ``file_kinds`` the kinds of
    file (``sqlite``, ``jsonl``) it reads from a path; ``takes_engine``
    whether ``open_store(engine=...)`` may give it an application's SQLAlchemy
    engine. ``kind`` names it in reports; ``where`` is the target for messages
    (a URL's credentials masked).
    """

    schemes: ClassVar[tuple[str, ...]] = ()
    file_kinds: ClassVar[tuple[str, ...]] = ()
    takes_engine: ClassVar[bool] = False
    kind: str = ""
    where: str = ""

    @abstractmethod
    def __init__(self, target: str, options: MigrateOptions, client: Any = None) -> None:
        """The store at ``target`` (a URL of one of ``schemes``, or a path), to be worked on
        with ``options``; ``client``: an open connection to use (server stores)."""

    @classmethod
    def check_url(cls, url: str) -> None:
        """Refuse (StoreError), connecting to nothing, a URL this backend cannot take
        (an option its driver does not know); a missing driver raises ImportError.
        A backend whose URLs carry no options takes every one."""
        return

    @classmethod
    def check_file(cls, path: Path, options: MigrateOptions) -> None:
        """Refuse (StoreError), changing nothing, a file this backend cannot read."""
        return

    @classmethod
    def open_file(cls, path: Path, options: MigrateOptions) -> Store:
        """The store of the file at ``path`` (a backend of a kind of file)."""
        return cls(str(path), options)

    @abstractmethod
    def migrate(self) -> StoreReport:
        """Migrate the store (or, with ``dry_run``, report what would change)."""

    @abstractmethod
    def restore(self, backups: Sequence[str]) -> StoreResult:
        """Put back the rows of ``backups`` (backup files this store's runs wrote)."""

    def forget(self) -> StoreResult:
        """Clear the store's migration state (a file store keeps none)."""
        return ForgetReport(path=self.where)

    def connect(self) -> RowAccess:
        """Row access (batches, compare-and-swap): server stores only."""
        raise StoreError(f"{self.where}: a file store is migrated whole; open a SQLite file "
                         "by its sqlite:/// URL for row access")


class FileStore(Store):
    """A store in one local file (a path), migrated whole by one run."""

    def __init__(self, target: str | os.PathLike[str], options: MigrateOptions,
                 client: Any = None) -> None:
        self.path, self.options, self.where = Path(target), options, os.fspath(target)


class ApplicationEngine:
    """An application's own SQLAlchemy engine, as ``open_store(engine=...)`` was given it:
    used as it is, never rebuilt from the URL and never disposed by the store."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any) -> None:
        self.engine = engine


S = TypeVar("S", bound=type[Store])
_BY_SCHEME: dict[str, type[Store]] = {}
_BY_FILE_KIND: dict[str, type[Store]] = {}


def register_store(backend: S) -> S:
    """Class decorator: register ``backend`` for its ``schemes`` and ``file_kinds``."""
    for scheme in backend.schemes:
        _BY_SCHEME[scheme.lower()] = backend
    for kind in backend.file_kinds:
        _BY_FILE_KIND[kind] = backend
    return backend


def registered_schemes() -> list[str]:
    """The URL schemes a backend is registered for, sorted."""
    return sorted(_BY_SCHEME)


def backend_for_scheme(scheme: str) -> type[Store] | None:
    """The backend registered for the URL scheme ``scheme`` (None: none is)."""
    return _BY_SCHEME.get(scheme.lower())


def backend_for_file(kind: str) -> type[Store] | None:
    """The backend registered for files of ``kind`` (``sqlite``, ``jsonl``)."""
    return _BY_FILE_KIND.get(kind)


def unknown_options(url: str, unknown: list[str], takes: str) -> None:
    """Refuse (StoreError) ``url`` when it has ``unknown`` options, which ``takes`` (the
    driver) does not take."""
    if unknown:
        names = ", ".join(repr(name) for name in unknown)
        raise StoreError(f"{mask_url(url)}: unknown URL option{'s' * (len(unknown) > 1)} "
                         f"{names}: {takes} takes no such option")


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
        if backend is None or not backend.takes_engine:
            raise TypeError("open_store(engine=...) is for a SQL URL")
        client = ApplicationEngine(engine)
    if scheme is None:
        path = Path(text)
        kind = file_kind(path, options.format)
        found = backend_for_file(kind)
        if found is None:  # pragma: no cover - both kinds are registered
            raise StoreError(f"{path}: no store is registered for {kind} files")
        return found.open_file(path, options)
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
        found = backend_for_file(file_kind(path, options.format))
        if found is not None:
            found.check_file(path, options)
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


def for_workers(options: MigrateOptions) -> MigrateOptions:
    """The options a worker process gets (no progress bar: it cannot be pickled)."""
    return replace(options, progress=None)
