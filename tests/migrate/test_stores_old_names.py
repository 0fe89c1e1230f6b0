"""The names ``handoff_codec.migrate.stores`` had until 0.2.0.dev0 still import, each the
class it became, with a ``DeprecationWarning`` naming the new name; any other name is an
AttributeError."""

from __future__ import annotations

import importlib

import pytest

import handoff_codec.migrate as migrate
import handoff_codec.migrate.stores as stores

OLD = [("RestoreReport", stores.BackupRestoreReport, "stores.BackupRestoreReport"),
       ("ServerStore", stores.RowAccess, "stores.RowAccess"),
       *[(name, getattr(migrate, name), f"handoff_codec.migrate.{name}")
         for name in ("EncryptedRule", "Row", "RowOutcome", "RowRule", "RowStatus")]]


@pytest.mark.parametrize(("old", "new", "named"), OLD)
def test_an_old_name_imports_what_it_became_with_a_warning(old: str, new: object,
                                                           named: str) -> None:
    with pytest.warns(DeprecationWarning, match=rf"stores\.{old} is now .*{named}$"):
        imported = getattr(importlib.import_module("handoff_codec.migrate.stores"), old)
    assert imported is new


def test_from_import_of_an_old_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="RowAccess"):
        from handoff_codec.migrate.stores import ServerStore
    assert ServerStore is stores.RowAccess


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'RestoreReports'"):
        stores.RestoreReports  # noqa: B018
