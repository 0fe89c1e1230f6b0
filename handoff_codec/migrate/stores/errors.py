"""What the stores raise: :class:`StoreError` and its two kinds, and how a driver's
exception becomes one (:func:`classify`), worded for the user with no secret in it.

The CLI's exit code follows the class: 2 for a :class:`StoreError` (nothing was
touched), 1 for a :class:`StoreRefusal`, 4 for a :class:`StoreUnreachable`.
"""

from __future__ import annotations

import re

from ._urls import mask_url, scrub, url_scheme

__all__ = ["StoreError", "StoreRefusal", "StoreUnreachable", "is_unreachable"]

# What to install when a driver is missing, by the module that is.
_EXTRAS = {"psycopg": "postgres", "psycopg2": "postgres", "pg8000": "postgres",
           "pymysql": "mysql", "MySQLdb": "mysql", "redis": "redis"}
_DEFAULT_DRIVERS = {"postgres": "psycopg", "mysql": "pymysql", "redis": "redis"}
_UNREACHABLE = re.compile(
    r"connection (?:refused|timed out|reset)|could not connect|can't connect|"
    r"could not translate host|name or service not known|no route to host|timeout expired|"
    r"server closed the connection|lost connection|network is unreachable|"
    r"temporary failure in name resolution|error (?:2003|2005|2006|2013)", re.IGNORECASE)


class StoreError(Exception):
    """The store cannot be migrated at all (missing, wrong kind, wrong schema).

    Raised before anything is written; the CLI prints it and exits 2.
    """


class StoreRefusal(StoreError):
    """The store exists but the run refused, or stopped part-way.

    Open writers, hard links, a read-only file, another migration holding the
    lock, a store that changed under the run, a table whose rows cannot be
    addressed: the store is as it was. A server-store run stopped part-way
    (a full disk under its backup file) says what it had committed and how to
    go on. The CLI prints it and exits 1.
    """


class StoreUnreachable(StoreError):
    """The store's server could not be reached (refused, timed out, name not found).

    Worth retrying later; the CLI exits 4.
    """


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
