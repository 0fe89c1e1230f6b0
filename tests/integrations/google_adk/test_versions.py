"""The google-adk versions: the extra pins the range tested, and the private ADK names
(the renderer, and the request builder's use of it) are checked when the module is
imported, by their presence."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import requires, version
from typing import Any

import pytest
from packaging.requirements import Requirement

from handoff_codec.integrations.google_adk import TESTED

from .conversations import ROOT


def _extra() -> Requirement:
    found = [Requirement(line) for line in requires("handoff-codec") or []]
    (requirement,) = [r for r in found if r.name == "google-adk" and r.marker is not None
                      and r.marker.evaluate({"extra": "google-adk"})]
    return requirement


def test_the_extra_pins_the_range_tested() -> None:
    requirement = _extra()
    assert any(spec.operator == "<" for spec in requirement.specifier)
    assert requirement.specifier == Requirement(TESTED).specifier
    assert version("google-adk") in requirement.specifier


# One process tries three ADKs in turn: without the renderer, with a renderer of
# another shape, and as installed; it prints what each import said.
IMPORTS = """
import importlib, json, sys
import google.adk.flows.llm_flows.context._fencing as fencing
import google.adk.flows.llm_flows.context._contents as builder
renderer = fencing._present_other_agent_message
said = {}
for case in ("missing", "other shape", "installed", "builder", "again"):
    if case == "missing":
        del fencing._present_other_agent_message
    elif case == "other shape":
        fencing._present_other_agent_message = lambda event, include_thoughts=False: event
    elif case == "installed":
        fencing._present_other_agent_message = renderer
    elif case == "builder":
        wrapper = builder._present_other_agent_message
        builder._present_other_agent_message = lambda event, include_thoughts=False: None
    else:
        builder._present_other_agent_message = wrapper
    for name in [m for m in sys.modules if m.startswith("handoff_codec.integrations.google_adk")]:
        del sys.modules[name]
    try:
        importlib.import_module("handoff_codec.integrations.google_adk")
    except ImportError as exc:
        said[case] = str(exc)
    else:
        said[case] = "imported"
said["wraps once"] = builder._present_other_agent_message.__wrapped__ is renderer
print(json.dumps(said))
"""


@pytest.fixture(scope="module")
def imports() -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=True)
    said: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return said


def test_an_adk_without_the_renderer_is_refused_at_import(imports: dict[str, str]) -> None:
    out = imports["missing"]
    assert "_present_other_agent_message" in out and "this google-adk does not have it" in out
    assert TESTED in out and "pip install 'handoff-codec[google-adk]'" in out


def test_an_adk_rendering_another_way_is_refused_at_import(imports: dict[str, str]) -> None:
    out = imports["other shape"]
    assert "rendering another agent's text as the versions tested do" in out
    assert TESTED in out


def test_the_installed_adk_imports(imports: dict[str, str]) -> None:
    assert imports["installed"] == "imported"


def test_an_adk_whose_request_builder_renders_another_way_is_refused(
        imports: dict[str, str]) -> None:
    out = imports["builder"]
    assert "google.adk.flows.llm_flows.context._contents" in out and TESTED in out


def test_a_second_import_wraps_adks_renderer_once(imports: dict[str, Any]) -> None:
    assert imports["again"] == "imported" and imports["wraps once"] is True
