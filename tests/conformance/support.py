"""Load the conformance runner, generator and adapters (scripts, not a package) by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SUITE = Path(__file__).resolve().parents[2] / "conformance"


def load(relative: str, name: str) -> ModuleType:
    """The module at conformance/``relative``, imported once under ``name``."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SUITE / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


runner = load("run.py", "conformance_run")
decoder = load("decoders/handoff_codec.py", "conformance_decoder")
encoder = load("encoders/handoff_codec.py", "conformance_encoder")

