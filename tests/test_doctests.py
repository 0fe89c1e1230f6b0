"""The examples in the package's docstrings run and print what they show (``>>>``)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import handoff_codec

# Every module of the package but the ``python -m`` entry points, which run the CLI.
MODULES = sorted(info.name for info in pkgutil.walk_packages(handoff_codec.__path__,
                                                              "handoff_codec.")
                 if not info.name.endswith(".__main__"))


def test_the_package_has_docstring_examples() -> None:
    finder = doctest.DocTestFinder()
    examples = sum(len(test.examples) for name in ["handoff_codec", *MODULES]
                   for test in finder.find(importlib.import_module(name)))
    assert examples >= 10


@pytest.mark.parametrize("name", ["handoff_codec", *MODULES])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                             report=True)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
