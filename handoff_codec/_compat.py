"""Old import paths of handoff-codec 0.1, kept for one release with a DeprecationWarning.

0.2 grouped the package by domain: the format at the top, ``replay`` and
``migrate`` in their own namespaces, and modules that are not API behind
underscored names. ``import handoff_codec.validation`` and the old top-level
names still work, and say where the name lives now.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import importlib.abc

__all__ = ["MOVED_ATTRIBUTES", "MOVED_MODULES", "MOVED_NAMES", "install", "moved_attribute",
           "moved_name"]

# Old module path (under handoff_codec) -> the module that holds its code now.
MOVED_MODULES: dict[str, str] = {
    "codec": "_codec",
    "errors": "_errors",
    "grammar": "_grammar",
    "reader": "_strict",
    "legacy": "_lenient",
    "encoder": "_encoder",
    "limits": "_limits",
    "signing": "_signing",
    "report": "_report",
    "chat": "replay._chat",
    "validation": "replay._validate",
    "providers": "replay._profiles",
    "empty": "replay.empty",
    "stores": "migrate.stores",
    "stores.sqlite": "migrate.stores.sqlite",
    "stores.jsonl": "migrate.stores.jsonl",
    # 0.2.0.dev names of the readers and the parsers' module.
    "_reader": "_strict",
    "_legacy": "_lenient",
    "_parsers": "_grammar",
}

# Where a user should import from now, for the warning.
_PUBLIC_HOME = {"replay._chat": "handoff_codec.replay", "replay._validate": "handoff_codec.replay",
                "replay._profiles": "handoff_codec.replay"}

# Old top-level name -> (module that holds it now, public path to name in the warning).
MOVED_NAMES: dict[str, tuple[str, str]] = {
    "to_chat_messages": ("handoff_codec.replay", "handoff_codec.replay.to_chat_messages"),
    "validate": ("handoff_codec.replay", "handoff_codec.replay.validate"),
    "replayable": ("handoff_codec.replay", "handoff_codec.replay.replayable"),
    "ValidationReport": ("handoff_codec.replay", "handoff_codec.replay.ValidationReport"),
    "Problem": ("handoff_codec.replay", "handoff_codec.replay.Problem"),
    "sanitize": ("handoff_codec.replay", "handoff_codec.replay.sanitize"),
    "empty": ("handoff_codec.replay", "handoff_codec.replay.empty"),
    "migrate_item": ("handoff_codec.migrate", "handoff_codec.migrate.migrate_item"),
    "migrate_items": ("handoff_codec.migrate", "handoff_codec.migrate.migrate_items"),
    "MigrationResult": ("handoff_codec.migrate", "handoff_codec.migrate.MigrationResult"),
    "MigrationStatus": ("handoff_codec.migrate", "handoff_codec.migrate.MigrationStatus"),
}


# Module -> name it held in 0.2.0.dev -> (module that holds it now, public path to name).
MOVED_ATTRIBUTES: dict[str, dict[str, tuple[str, str]]] = {
    "handoff_codec._signing": {
        "FlattenReport": ("handoff_codec._flatten", "handoff_codec.FlattenReport"),
        "TrustDecision": ("handoff_codec._flatten", "handoff_codec.TrustDecision"),
        "Reason": ("handoff_codec._flatten", "handoff_codec.Reason"),
    },
}


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(f"{old} is deprecated; use {new} (it will be removed in 0.3)",
                  DeprecationWarning, stacklevel=stacklevel + 1)


def moved_name(name: str) -> object:
    """The value of an old top-level name, with a DeprecationWarning."""
    module, public = MOVED_NAMES[name]
    _warn(f"handoff_codec.{name}", public, stacklevel=3)  # the caller of __getattr__
    return getattr(importlib.import_module(module), name)


def moved_attribute(module: str, name: str) -> object:
    """For a module's ``__getattr__``: a name moved out of it, with a DeprecationWarning;
    AttributeError for any other name."""
    moved = MOVED_ATTRIBUTES.get(module, {}).get(name)
    if moved is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", moved[1], stacklevel=3)  # the caller of __getattr__
    return getattr(importlib.import_module(moved[0]), name)


class _Alias:
    """Imports ``handoff_codec.<old>`` as the module that now holds its code.

    A meta path finder and loader by its methods; not derived from
    ``importlib.abc``, whose import (about 10 ms) would be paid by every
    ``import handoff_codec``.
    """

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        prefix, _, rest = fullname.partition(".")
        if prefix != "handoff_codec" or rest not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("importlib.abc.Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        moved = MOVED_MODULES[module.__name__.partition(".")[2]]
        new = f"handoff_codec.{moved}"
        home = _PUBLIC_HOME.get(moved, "handoff_codec" if moved.startswith("_") else new)
        _warn(module.__name__, home, stacklevel=2)
        # The import system returns whatever sys.modules holds once this returns.
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Register the alias finder once (idempotent)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        # First: the path finder would load a moved submodule a second time
        # under its old name through the alias's __path__.
        sys.meta_path.insert(0, _Alias())
