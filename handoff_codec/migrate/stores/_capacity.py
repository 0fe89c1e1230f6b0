"""What a MySQL/MariaDB ``message_data`` column can hold, and the rows that would not fit.

A canonical summary can be longer than the legacy one it replaces (JSON records
for multi-line turns, escaped again inside the row's JSON string): a 65,411-byte
legacy row can become 73,217 bytes, and the SDK's ``TEXT`` column holds 65,535.
MySQL/MariaDB in strict mode then refuses the whole batch (every ``--resume``
the same), and with a non-strict ``sql_mode`` it cuts the row to invalid JSON.

So the store reads the column's capacity from ``information_schema.COLUMNS``:
``TEXT``/``BLOB`` types hold ``CHARACTER_OCTET_LENGTH`` bytes in the column's
character set, ``CHAR``/``VARCHAR`` hold ``CHARACTER_MAXIMUM_LENGTH`` characters.
A row whose new bytes would not fit (or hold a character the column's character
set cannot store) is refused with the reason and left as it is; the batch goes
on. Our own connections also run in a strict ``sql_mode``, so a value the
check could not foresee fails loudly instead of being cut.
PostgreSQL ``text`` and SQLite hold any row the migration writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..rule import RowOutcome

__all__ = ["Capacity", "column_capacity", "foreign_bytes", "refusal", "strict_mode",
           "within_capacity"]

# MySQL character sets and the Python codec that gives their bytes (``latin1`` is cp1252).
_ENCODINGS = {"utf8mb4": "utf-8", "utf8mb3": "utf-8", "utf8": "utf-8", "latin1": "cp1252",
              "ascii": "ascii", "binary": None, "ucs2": "utf-16-be", "utf16": "utf-16-be",
              "utf32": "utf-32-be"}
_BYTE_TYPES = ("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob",
               "mediumblob", "longblob", "json")


@dataclass(frozen=True)
class Capacity:
    """A column's limit: ``limit`` bytes (TEXT, BLOB) or characters (CHAR, VARCHAR)."""

    column_type: str
    limit: int
    in_bytes: bool
    charset: str | None  # None: binary

    def refusal(self, new: bytes) -> str | None:
        """Why ``new`` (UTF-8) cannot be stored in the column, or None when it fits."""
        text = new.decode("utf-8", "surrogateescape")
        if self.charset in ("utf8mb3", "utf8") and any(ord(char) > 0xFFFF for char in text):
            return (f"the canonical text holds characters beyond U+FFFF, which the "
                    f"column's character set {self.charset} cannot store; left as it is")
        if not self.in_bytes:
            size, unit = len(text), "characters"
        else:
            encoding = _ENCODINGS.get(self.charset or "binary", "utf-8")
            try:
                size = len(new) if encoding is None else len(text.encode(encoding))
            except UnicodeEncodeError:
                return (f"the canonical text holds characters the column's character set "
                        f"{self.charset} cannot store; left as it is")
            unit = "bytes"
        if size <= self.limit:
            return None
        return (f"canonical text is {size} {unit}, column holds {self.limit} "
                f"({self.column_type}); left as it is")


def column_capacity(conn: Any, table: str, column: str) -> Capacity | None:
    """The capacity of ``table.column`` in the connection's database (MySQL/MariaDB)."""
    import sqlalchemy as sa

    row = conn.execute(sa.text(
        "SELECT DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, "
        "CHARACTER_SET_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
        "AND TABLE_NAME = :t AND COLUMN_NAME = :c"), {"t": table, "c": column}).first()
    if row is None:
        return None
    kind, chars, octets, charset = (str(row[0]).lower(), row[1], row[2], row[3])
    if kind in _BYTE_TYPES and octets is not None:
        return Capacity(kind.upper(), int(octets), True, charset and str(charset).lower())
    if chars is not None:
        in_bytes = kind in ("binary", "varbinary")
        return Capacity(kind.upper(), int(chars), in_bytes, charset and str(charset).lower())
    return None


def refusal(store: Any, new: bytes) -> str | None:
    """Why ``store`` cannot hold ``new``, or None (also for stores without a limit)."""
    capacity: Capacity | None = getattr(store, "capacity", None)
    return None if capacity is None else capacity.refusal(new)


# Character sets whose bytes are read as they are: UTF-8, its ASCII subset, binary.
_UTF8_READABLE = (None, "utf8mb4", "utf8mb3", "utf8", "ascii", "binary")


def foreign_bytes(store: Any, raw: bytes | None) -> str | None:
    """Why a row of ``store`` is left as it is before it is read: non-ASCII bytes in a column
    whose character set is not UTF-8 (``latin1``: bytes that also read as UTF-8 would be
    rewritten as other characters, and the server would convert them on the way back).
    None: the row is read as usual."""
    capacity: Capacity | None = getattr(store, "capacity", None)
    if capacity is None or capacity.charset in _UTF8_READABLE or raw is None or raw.isascii():
        return None
    return (f"the column's character set is {capacity.charset}, not UTF-8: a row with "
            "non-ASCII bytes is not read (its bytes would change); left as it is")


def within_capacity(store: Any, outcome: RowOutcome) -> RowOutcome:
    """``outcome``, or the same outcome refused when its new bytes would not fit in
    ``store``'s column."""
    if outcome.new is None:
        return outcome
    reason = refusal(store, outcome.new)
    if reason is None:
        return outcome
    return outcome.refused(reason)


def strict_mode(dbapi_connection: Any, _record: Any) -> None:
    """A ``connect`` listener: a strict ``sql_mode`` on this connection (MySQL/MariaDB),
    so a value too long for its column is an error, never cut."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@SESSION.sql_mode, ''), "
                       "'STRICT_ALL_TABLES')")
    finally:
        cursor.close()
