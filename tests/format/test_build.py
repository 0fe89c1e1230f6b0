"""The build the tests run on: pure Python, or the reader compiled with mypyc.

The same tests run on both (docs/performance.md, "Compiled build"). A run on the
compiled wheel sets ``HANDOFF_CODEC_BUILD=mypyc``: then every module the build hook
of ``pyproject.toml`` compiles must be imported compiled (not the source tree's
``.py``); else none may be.
"""

from __future__ import annotations

import importlib
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from handoff_codec._build import compiled  # private: which build is imported, not API

tomllib = pytest.importorskip("tomllib")

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
EXPECTED = os.environ.get("HANDOFF_CODEC_BUILD", "pure")


def _compiled_modules() -> list[str]:
    """The modules the mypyc build hook compiles, as dotted names."""
    hooks = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["hatch"]["build"]
    paths = hooks["targets"]["wheel"]["hooks"]["mypyc"]["include"]
    return [path.strip("/").removesuffix(".py").replace("/", ".") for path in paths]


def test_the_build_is_the_one_expected() -> None:
    assert EXPECTED in ("pure", "mypyc")
    assert compiled() is (EXPECTED == "mypyc")


@pytest.mark.parametrize("name", _compiled_modules())
def test_each_module_the_hook_compiles_is_imported_as_built(name: str) -> None:
    path = importlib.import_module(name).__file__
    assert path is not None
    assert path.endswith(tuple(EXTENSION_SUFFIXES)) is (EXPECTED == "mypyc"), path
    if EXPECTED == "mypyc":  # the installed wheel, not the source tree
        assert not Path(path).is_relative_to(PYPROJECT.parent / "handoff_codec"), path
