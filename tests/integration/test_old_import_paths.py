"""The 0.1 import paths still work for one release, each with a DeprecationWarning."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODULES = {
    "handoff_codec.codec": "Codec",
    "handoff_codec.errors": "DecodeError",
    "handoff_codec.reader": "read",
    "handoff_codec.legacy": "parse_lenient",
    "handoff_codec.report": "Decoded",
    "handoff_codec.signing": "sign_text",
    "handoff_codec.limits": "DEFAULT_MAX_BYTES",
    "handoff_codec.grammar": "parser",
    "handoff_codec.chat": "to_chat_messages",
    "handoff_codec.validation": "validate",
    "handoff_codec.providers": "sanitize",
    "handoff_codec.empty": "visible_text",
    "handoff_codec.stores": "StoreReport",
    "handoff_codec.stores.sqlite": "migrate_sqlite",
    "handoff_codec.stores.jsonl": "migrate_jsonl",
    "handoff_codec._reader": "read",
    "handoff_codec._legacy": "parse_lenient",
    "handoff_codec._parsers": "parser",
}
NAMES = ["to_chat_messages", "validate", "replayable", "ValidationReport", "Problem",
         "sanitize", "empty", "migrate_item", "migrate_items", "MigrationResult",
         "MigrationStatus"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_old_module_path_warns_and_gives_the_same_objects(module: str) -> None:
    # A fresh interpreter, so that the first import (the one that warns) is ours.
    code = (f"import warnings\nwarnings.simplefilter('error', DeprecationWarning)\n"
            f"try:\n    import {module}\nexcept DeprecationWarning as w:\n    print(w)\n"
            f"warnings.simplefilter('ignore')\nimport {module} as old\n"
            f"print(old.{MODULES[module]} is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    # A submodule of an old package warns first for the package it goes through.
    warned = out[0].split(" is deprecated; use handoff_codec")[0]
    assert warned in (module, module.rpartition(".")[0]), out[0]
    assert out[1] == "True"


@pytest.mark.parametrize("name", NAMES)
def test_old_top_level_name_warns_and_still_works(name: str) -> None:
    import handoff_codec

    with pytest.warns(DeprecationWarning, match=f"handoff_codec.{name} is deprecated"):
        value = getattr(handoff_codec, name)
    assert value is not None
    assert name not in handoff_codec.__all__


def test_the_new_paths_do_not_warn() -> None:
    code = ("import warnings\nwarnings.simplefilter('error')\nimport handoff_codec\n"
            "from handoff_codec import Codec, DecodeError, dumps, loads, decode, flatten\n"
            "from handoff_codec.replay import validate, replayable, to_chat_messages, "
            "sanitize, empty, to_provider, restore_empty\n"
            "from handoff_codec.migrate import migrate_item, migrate_items\n"
            "from handoff_codec.migrate.stores.sqlite import migrate_sqlite\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", ["FlattenReport", "TrustDecision", "Reason"])
@pytest.mark.parametrize("module", ["handoff_codec._signing", "handoff_codec.signing"])
def test_flattening_names_moved_out_of_signing_warn_and_still_work(module: str,
                                                                    name: str) -> None:
    import importlib
    import warnings

    import handoff_codec
    from handoff_codec import _flatten

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module(module)
    warning = f"handoff_codec._signing.{name} is deprecated; use handoff_codec.{name}"
    with pytest.warns(DeprecationWarning, match=warning):
        value = getattr(old, name)
    assert value is getattr(_flatten, name) is getattr(handoff_codec, name)
    with pytest.raises(AttributeError):
        old.NoSuchName  # noqa: B018


def test_signing_only_signs_and_verifies() -> None:
    import handoff_codec._signing as signing

    assert sorted(signing.__all__) == ["DOMAIN", "Verdict", "sign_text", "split_signature",
                                       "verify_text"]


def test_flattening_does_not_import_replay() -> None:
    code = ("import sys, handoff_codec\n"
            "handoff_codec.flatten([{'role': 'user', 'content': 'a'}])\n"
            "handoff_codec.nest([{'role': 'user', 'content': 'a'}])\n"
            "print(sorted(m for m in sys.modules if m.startswith('handoff_codec.replay')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
