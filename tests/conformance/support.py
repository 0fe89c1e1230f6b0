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

# Vectors that rest on the lenient reader's rules for summaries written by a
# writer that escapes line breaks (every record-shaped line starts a record,
# `renumbered`) and for splits the text cannot settle (`ambiguous`). They pass
# once the reader implements those rules; until then each fails as listed.
PENDING_READER_RULES = {
    "decode/legacy/openai-agents-0.17.1-0.19/renumbered_backwards_json",
    "decode/legacy/openai-agents-0.6-0.17.0/ambiguous_repeated_number",
    "decode/legacy/go-denggeng/record_lookalike_line",
    "decode/legacy/openai-agents-js-dev/record_lookalike_line",
    "decode/legacy/rust-scalarian/record_lookalike_line",
    "decode/legacy/rust-ultraembedded/record_lookalike_line",
}
