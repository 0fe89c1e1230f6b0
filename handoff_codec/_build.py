"""Which build of the reader is imported: pure Python, or compiled with mypyc.

A wheel built with ``HATCH_BUILD_HOOK_ENABLE_MYPYC=true`` (docs/performance.md,
"Compiled build") holds the modules of ``handoff_codec.format.read`` that a read
runs compiled, with their ``.py`` files beside them; every other install (``pip
install .``, ``pip install -e .``) is pure Python. Both read alike: the same tests
run on both.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES

__all__ = ["compiled"]


def compiled() -> bool:
    """Whether the reader imported is the mypyc build (its one pass is an extension module)."""
    from .format.read import fast

    return fast.__file__ is not None and fast.__file__.endswith(tuple(EXTENSION_SUFFIXES))
