"""The modules of ``replay/`` import in layers, recorded while they run (``import_graph``).

Every module is imported and every public function called for every target in
a fresh interpreter, with each import statement noted as it runs, top-level
and inside functions alike.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def graph() -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "tests.replay.import_graph", "--json"],
                          capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    recorded: dict[str, Any] = json.loads(done.stdout)
    return recorded


def test_no_module_of_replay_imports_one_that_imports_it_back(graph: dict[str, Any]) -> None:
    assert graph["edges"], "the recorder saw no import at all"
    assert graph["cycles"] == []


def test_no_underscored_name_crosses_a_module_line(graph: dict[str, Any]) -> None:
    assert graph["private"] == []


def test_the_converters_sit_above_the_shared_checks(graph: dict[str, Any]) -> None:
    edges = {tuple(edge) for edge in graph["edges"]}
    # The recorder does see the imports of the provider modules and of the validator.
    assert ("_anthropic", "_checks") in edges
    assert ("_validate", "_checks") in edges and ("_native", "_checks") in edges
    assert ("_native", "_validate") not in edges
