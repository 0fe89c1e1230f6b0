"""``import handoff_codec`` works without openai-agents, and
``handoff_codec.integrations.openai_agents`` says
what to install.

Each check runs in a fresh interpreter whose ``sys.meta_path`` starts with a
finder that refuses ``agents`` and ``agents.*``, as if openai-agents were not
installed, and that records every attempt to import it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]

BLOCKER = textwrap.dedent(
    """
    import sys

    attempts = []

    class NoAgents:
        def find_spec(self, name, path=None, target=None):
            if name == "agents" or name.startswith("agents."):
                attempts.append(name)
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoAgents())
    for name in [n for n in sys.modules if n == "agents" or n.startswith("agents.")]:
        del sys.modules[name]
    """
)


def _run(body: str) -> dict[str, Any]:
    code = BLOCKER + textwrap.dedent(body)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_blocker_really_blocks() -> None:
    result = _run(
        """
        import json
        try:
            import agents
            print(json.dumps({"imported": True}))
        except ImportError:
            print(json.dumps({"imported": False}))
        """
    )
    assert result == {"imported": False}


def test_core_package_works_without_agents() -> None:
    result = _run(
        """
        import importlib, json, pkgutil
        import handoff_codec

        items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]
        ok = handoff_codec.flatten([handoff_codec.format.summarize(items)]) == items
        ok = ok and handoff_codec.loads(handoff_codec.dumps(items)) == items
        for name in handoff_codec.__all__:      # lazy attributes load their modules
            getattr(handoff_codec, name)
        for info in pkgutil.walk_packages(handoff_codec.__path__, "handoff_codec."):
            # the integration and its SDK internals need the SDK
            if not info.name.startswith("handoff_codec.integrations.openai_agents") \
                    and not info.name.endswith(".__main__"):
                importlib.import_module(info.name)
        print(json.dumps({"ok": ok, "attempts": attempts}))
        """
    )
    assert result == {"ok": True, "attempts": []}


def test_agents_module_says_what_to_install() -> None:
    result = _run(
        """
        import json
        import handoff_codec
        try:
            import handoff_codec.integrations.openai_agents
            print(json.dumps({"error": None}))
        except ImportError as exc:
            print(json.dumps({"error": str(exc), "type": type(exc).__name__}))
        """
    )
    assert result["type"] == "ImportError"
    assert "pip install 'handoff-codec[openai-agents]'" in result["error"]
    assert "openai-agents" in result["error"]
