"""The names this package had until 0.2.0.dev0: each still imports from it, with a
``DeprecationWarning`` naming the new one, until the next release."""

from __future__ import annotations

import warnings
from typing import Any

from .. import rule
from . import report, row_access

# old name: (new name, where it is now)
_RENAMED: dict[str, tuple[str, Any]] = {
    "RestoreReport": ("BackupRestoreReport", report),
    "ServerStore": ("RowAccess", row_access),
    **{name: (name, rule) for name in ("EncryptedRule", "Row", "RowOutcome", "RowRule",
                                       "RowStatus")},
}


def __getattr__(name: str) -> Any:
    """The module ``__getattr__`` of ``handoff_codec.migrate.stores``."""
    if name not in _RENAMED:
        raise AttributeError(f"module 'handoff_codec.migrate.stores' has no attribute {name!r}")
    new, module = _RENAMED[name]
    where = "handoff_codec.migrate" if module is rule else "handoff_codec.migrate.stores"
    warnings.warn(f"handoff_codec.migrate.stores.{name} is now {where}.{new}",
                  DeprecationWarning, stacklevel=2)
    return getattr(module, new)
