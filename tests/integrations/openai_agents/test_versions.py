"""The openai-agents versions: the extra pins the range tested, and every private SDK name
the package uses is checked by its presence, at import (or when a session is given)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import requires, version

import pytest
from packaging.requirements import Requirement

from handoff_codec.integrations.openai_agents_internals import TESTED

from .test_packaging import ROOT


def test_the_extra_pins_the_range_tested() -> None:
    found = [Requirement(line) for line in requires("handoff-codec") or []]
    (requirement,) = [r for r in found if r.name == "openai-agents" and r.marker is not None
                      and r.marker.evaluate({"extra": "openai-agents"})]
    assert any(spec.operator == "<" for spec in requirement.specifier)
    assert requirement.specifier == Requirement(TESTED).specifier
    assert version("openai-agents") in requirement.specifier


# Each name, removed from the SDK before the integration is imported in a fresh process.
AT_IMPORT = [
    ("agents.run_internal.items", "NestedHistoryOwnedItem"),
    ("agents.run_internal.items", "digest_input_item"),
    ("agents.run_internal.items", "ensure_nested_history_run_item_occurrence_key"),
    ("agents.handoffs.history", "_get_nested_history_owned_items"),
    ("agents.extensions.memory.encrypt_session", "_ensure_fernet_key_bytes"),
    ("agents.extensions.memory.encrypt_session", "_derive_session_fernet_key"),
    ("agents.extensions.memory.encrypt_session", "_is_encrypted_envelope"),
]

# One process tries each case in turn: the name removed, the integration imported anew.
IMPORTS = """
import importlib, json, sys
said = {}
for module_name, name in json.loads(sys.argv[1]):
    module = importlib.import_module(module_name)
    value = getattr(module, name)
    delattr(module, name)
    for loaded in [m for m in sys.modules if m.startswith("handoff_codec.integrations.openai")]:
        del sys.modules[loaded]
    try:
        importlib.import_module("handoff_codec.integrations.openai_agents")
    except ImportError as exc:
        said[f"{module_name}.{name}"] = str(exc)
    else:
        said[f"{module_name}.{name}"] = "imported"
    setattr(module, name, value)
print(json.dumps(said))
"""


@pytest.fixture(scope="module")
def imports() -> dict[str, str]:
    proc = subprocess.run([sys.executable, "-c", IMPORTS, json.dumps(AT_IMPORT)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=True)
    said: dict[str, str] = json.loads(proc.stdout.splitlines()[-1])
    return said


@pytest.mark.parametrize(("module", "name"), AT_IMPORT)
def test_an_sdk_without_a_name_used_is_refused_at_import(
        imports: dict[str, str], module: str, name: str) -> None:
    out = imports[f"{module}.{name}"]
    assert f"{module}.{name}" in out
    assert TESTED in out and f"openai-agents {version('openai-agents')} is installed" in out
    assert "pip install 'handoff-codec[openai-agents]'" in out


# A session's own attributes: a session of another shape is refused with the same words.
SESSIONS = """
import json
from agents.extensions.memory import RedisSession, SQLAlchemySession
from redis.asyncio import Redis
from handoff_codec.integrations import openai_agents_internals as internals
said = {}
redis = RedisSession("s", redis_client=Redis())
sql = SQLAlchemySession.from_url("s", url="sqlite+aiosqlite:///:memory:")
said["installed"] = [list(map(str, internals.sqlalchemy_tables(sql))),
                     internals.redis_list(redis)[1]]
for session, name, read in ((redis, "_redis", internals.redis_list),
                            (redis, "_messages_key", internals.redis_list),
                            (sql, "_messages", internals.sqlalchemy_tables),
                            (sql, "_sessions", internals.sqlalchemy_tables)):
    value = getattr(session, name)
    delattr(session, name)
    try:
        read(session)
    except ImportError as exc:
        said[name] = str(exc)
    setattr(session, name, value)
print(json.dumps(said))
"""


def test_a_session_without_an_attribute_used_is_refused() -> None:
    out = subprocess.run([sys.executable, "-c", SESSIONS], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, check=True).stdout
    said = json.loads(out.splitlines()[-1])
    tables_and_key = [["agent_messages", "agent_sessions"], "agents:session:s:messages"]
    assert said.pop("installed") == tables_and_key
    assert sorted(said) == ["_messages", "_messages_key", "_redis", "_sessions"]
    for name, message in said.items():
        assert f"Session.{name}" in message and TESTED in message
