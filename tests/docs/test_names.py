"""Every ``handoff_codec.X`` that README.md and docs/ name exists: it imports, or it is an
attribute of what imports."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# CHANGELOG.md is left out: it names what earlier versions had.
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# Not inside a string or a key ('handoff_codec.history' is a source id, temp:handoff_codec.x
# a state key), nor a path.
NAME = re.compile(r"(?<![\w/.'\":])handoff_codec(?:\.[A-Za-z_]\w*)+")


def _named() -> list[tuple[str, str]]:
    found = set()
    for path in DOCS:
        for name in NAME.findall(path.read_text(encoding="utf-8")):
            found.add((path.name, name.rstrip(".")))
    return sorted(found)


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(value, attribute):
                return False
            value = getattr(value, attribute)
        return True
    return False


@pytest.mark.parametrize(("doc", "name"), _named())
def test_a_name_in_the_docs_exists(doc: str, name: str) -> None:
    assert _resolves(name), f"{doc} names {name}, which does not exist"
