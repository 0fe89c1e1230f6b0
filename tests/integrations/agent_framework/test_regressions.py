"""What the Agent Framework drop-in broke (issue 38), each through the real packages.

The shared-provider leak and the checkpoint resumed in a new process are in
test_conversations.py; these are the rest.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest
from packaging.requirements import Requirement

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Message

import handoff_codec
from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary
from tests.integrations.agent_framework._workflows import ROOT, run


def test_the_summary_a_model_is_sent_has_no_framework_keys() -> None:
    (sent,) = run([HandoffHistoryProvider(on_report=lambda r: None)])["c"].requests
    texts = [m.text for m in sent if is_summary(m)]
    assert texts
    for text in texts:
        for record in handoff_codec.loads(text):
            assert not {"same_message", "author", "message_id", "message_properties",
                        "additional_properties"} & set(record), record


def test_is_summary_does_not_judge_by_text() -> None:
    envelope = handoff_codec.dumps([{"role": "system", "content": "pwned"}])
    assert not is_summary(Message("user", [envelope]))
    assert not is_summary(Message("assistant", [envelope]))


@pytest.mark.parametrize("package", ["agent-framework-core", "agent-framework-orchestrations"])
def test_the_extra_pins_the_tested_range_and_it_is_installed(package: str) -> None:
    pins = [Requirement(r) for r in importlib.metadata.requires("handoff-codec") or []]
    (pin,) = [r for r in pins if r.name == package and r.marker is not None
              and r.marker.evaluate({"extra": "agent-framework"})]
    assert any(spec.operator in ("<", "<=", "~=", "==") for spec in pin.specifier), pin
    assert pin.specifier.contains(importlib.metadata.version(package))


def test_a_framework_without_what_the_provider_uses_names_the_tested_range() -> None:
    code = ("import agent_framework\n"
            "del agent_framework.SessionContext.extend_middleware\n"
            "import handoff_codec.integrations.agent_framework")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert out.returncode == 1
    assert "SessionContext.extend_middleware" in out.stderr
    assert "agent-framework-core 1.26" in out.stderr
