"""Store URLs without their secrets: what reports, errors, backups and checkpoints show.

Every credential in a URL is masked: the password of its userinfo, and the
value of every query parameter whose name looks like one (``password``,
``sslpassword``, ``token``, ``secret``, ``key``, ``auth``, ...), as libpq,
PyMySQL and redis-py all read a password from the query too.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit, urlunsplit

__all__ = ["mask_url", "same_server", "scrub", "url_scheme"]

MASK = "***"
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_SECRET_NAME = re.compile(r"pass|pwd|secret|token|key|auth|cred", re.IGNORECASE)


def _parts(url: str) -> tuple[str, str, list[str]]:
    """(masked netloc, masked query, the secret values found), for ``url``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "", "", []
    netloc, found = parts.netloc, []
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, password = userinfo.partition(":")
        if colon and password != MASK:
            found.append(password)
            netloc = f"{user}:{MASK}@{host}"
    pairs = []
    for pair in parts.query.split("&") if parts.query else []:
        name, equals, value = pair.partition("=")
        if equals and value and _SECRET_NAME.search(unquote(name)) and value != MASK:
            found.append(value)
            pair = f"{name}={MASK}"
        pairs.append(pair)
    return netloc, "&".join(pairs), found


def url_scheme(target: str) -> str | None:
    """The scheme of a URL (``postgresql`` for ``postgresql+psycopg://``), None for a path."""
    match = _URL.match(target)
    return match.group(1).split("+", 1)[0].lower() if match else None


def mask_url(url: str) -> str:
    """``url`` with every credential replaced by ``***``."""
    netloc, query, found = _parts(url)
    if not found:
        return url
    return urlunsplit(urlsplit(url)._replace(netloc=netloc, query=query))


def scrub(text: str, url: str) -> str:
    """``text`` (an error message, say) with every secret of ``url`` replaced by ``***``."""
    secrets: set[str] = set()
    for value in _parts(url)[2]:
        secrets.update({value, unquote(value), quote(unquote(value), safe="")})
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text.replace(url, mask_url(url))


def _addresses(host: str, port: int | None) -> set[str]:
    import socket

    try:
        return {str(info[4][0])
                for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return {host}


def same_server(first: str, second: str) -> bool:
    """Whether two URLs name one server's same database: the same scheme, port, path and
    user, and host names that resolve to a common address (``localhost`` and ``127.0.0.1``)."""
    if first == second:
        return True
    try:
        a, b = urlsplit(first), urlsplit(second)
        ports = (a.port, b.port)
    except ValueError:
        return False
    if (a.scheme.lower(), ports[0], a.path, a.username, a.query) != (
            b.scheme.lower(), ports[1], b.path, b.username, b.query):
        return False
    if not a.hostname or not b.hostname:
        return False
    return a.hostname == b.hostname or bool(_addresses(a.hostname, ports[0])
                                            & _addresses(b.hostname, ports[1]))
