"""The store backends' base class and their registry (as alembic keeps one implementation
class per dialect).

Every backend is one :class:`Store` subclass, registered with :func:`register_store`
for the URL schemes it opens (``postgresql``, ``redis``, ...) or the kind of
file it reads (``sqlite``, ``jsonl``). ``open_store`` finds a backend only
here: a URL by its scheme, a path by the kind of file it is. A backend is
built from its target and the one :class:`~.MigrateOptions` object, and every
action returns a :class:`~handoff_codec.migrate.stores.StoreResult`.

``handoff_codec.migrate.stores`` gives these names with the built-in backends
registered::

    >>> from handoff_codec.migrate.stores import registered_schemes
    >>> registered_schemes()[:3]
    ['mariadb', 'mysql', 'postgres']
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from . import ForgetReport, StoreError, StoreReport, StoreResult, StoreUnreachable
from ._urls import mask_url, scrub

if TYPE_CHECKING:
    from ._options import MigrateOptions
    from ._protocol import ServerStore

__all__ = ["Store", "backend_for_file", "backend_for_scheme", "classify", "for_workers",
           "is_unreachable", "register_store", "registered_schemes", "url_scheme"]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
# What to install when a driver is missing, by the module that is.
_EXTRAS = {"psycopg": "postgres", "psycopg2": "postgres", "pg8000": "postgres",
           "pymysql": "mysql", "MySQLdb": "mysql", "redis": "redis"}
_DEFAULT_DRIVERS = {"postgres": "psycopg", "mysql": "pymysql", "redis": "redis"}
_UNREACHABLE = re.compile(
    r"connection (?:refused|timed out|reset)|could not connect|can't connect|"
    r"could not translate host|name or service not known|no route to host|timeout expired|"
    r"server closed the connection|lost connection|network is unreachable|"
    r"temporary failure in name resolution|error (?:2003|2005|2006|2013)", re.IGNORECASE)


class Store(ABC):
    """One backend: a kind of store, opened for one target with the run's options.

    ``schemes`` are the URL schemes it opens; ``file_kinds`` the kinds of
    file (``sqlite``, ``jsonl``) it reads from a path. ``kind`` names it in
    reports; ``where`` is the target for messages (a URL's credentials masked).
    """

    schemes: ClassVar[tuple[str, ...]] = ()
    file_kinds: ClassVar[tuple[str, ...]] = ()
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

    @abstractmethod
    def migrate(self) -> StoreReport:
        """Migrate the store (or, with ``dry_run``, report what would change)."""

    @abstractmethod
    def restore(self, backups: Sequence[str]) -> StoreResult:
        """Put back the rows of ``backups`` (backup files this store's runs wrote)."""

    def forget(self) -> StoreResult:
        """Clear the store's migration state (a file store keeps none)."""
        return ForgetReport(path=self.where)

    def connect(self) -> ServerStore:
        """Row access (batches, compare-and-swap): server stores only."""
        raise StoreError(f"{self.where}: a file store is migrated whole; open a SQLite file "
                         "by its sqlite:/// URL for row access")


class FileStore(Store):
    """A store in one local file (a path), migrated whole by one run."""

    def __init__(self, target: str | os.PathLike[str], options: MigrateOptions,
                 client: Any = None) -> None:
        self.path, self.options, self.where = Path(target), options, os.fspath(target)


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


def url_scheme(target: str) -> str | None:
    """The scheme of a URL (``postgresql`` for ``postgresql+psycopg://``), None for a path."""
    match = _URL.match(target)
    return match.group(1).split("+", 1)[0].lower() if match else None


def classify(exc: BaseException, url: str) -> StoreError:
    """A StoreError for ``exc``: unreachable, a missing driver, or as it is; no secrets."""
    cause = exc.__cause__ or exc.__context__ or exc
    message = re.sub(r"\s*\n\s*", " ", scrub(str(exc), url)).strip()  # one line
    if isinstance(cause, ImportError):
        module = (cause.name or "").split(".")[0]
        extra = _EXTRAS.get(module)
        if module == "sqlalchemy":  # both SQL extras hold it: the one for this URL's server
            scheme = url_scheme(url) or ""
            extra = "mysql" if scheme in ("mysql", "mariadb") else "postgres"
            also = "" if scheme in ("mysql", "mariadb", "postgresql", "postgres") else \
                " (or 'handoff-codec[mysql]')"
            if scheme == "sqlite":
                also += "; or give the SQLite file's path, which needs no extra"
            return StoreError(f"{mask_url(url)}: SQL stores need SQLAlchemy, which is not "
                              f"installed: pip install 'handoff-codec[{extra}]'{also}")
        if extra is not None:
            default = _DEFAULT_DRIVERS.get(extra)
            hint = (f"pip install 'handoff-codec[{extra}]'" if module == default else
                    f"install it, or pip install 'handoff-codec[{extra}]' for the driver "
                    f"{default!r}, used when the URL names none")
            return StoreError(f"{mask_url(url)}: the driver {module!r} is not installed: {hint}")
    if is_unreachable(cause):
        return StoreUnreachable(message)
    if isinstance(exc, StoreError):
        return type(exc)(message)
    return StoreError(message)


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server could not be reached (worth retrying later)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "AuthenticationError" in names or "AuthenticationWrongNumberOfArgsError" in names:
        return False
    if names & {"ConnectionError", "TimeoutError", "ConnectionRefusedError"}:
        return True
    orig = getattr(exc, "orig", None)
    return bool(_UNREACHABLE.search(f"{exc} {orig or ''}"))


def for_workers(options: MigrateOptions) -> MigrateOptions:
    """The options a worker process gets (no progress bar: it cannot be pickled)."""
    return replace(options, progress=None)
