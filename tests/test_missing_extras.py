"""Without an extra installed, importing (for a store's driver: using) what needs it names the
extra to install.

The extra's package is hidden from a fresh interpreter (``sys.modules[name] = None`` makes its
import fail as if it were not installed), as after a plain ``pip install handoff-codec``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    # The stores package imports without SQLAlchemy (the SQL backend is registered all the
    # same); what needs it names the extra.
    ("sqlalchemy", "from handoff_codec.migrate.stores import engine_url\n"
                   "engine_url('postgresql://127.0.0.1/test')",
     "pip install 'handoff-codec[postgres]'"),
    ("google", "import handoff_codec.integrations.google_adk_internals",
     "pip install 'handoff-codec[google-adk]'"),
    # Each integration, its framework missing: one ImportError naming the module a user
    # imports (an internals module, the one it serves) and the extra.
    *[(hidden, f"import handoff_codec.integrations.{module}",
       f"handoff_codec.integrations.{named} needs ") for hidden, module, named in [
        ("a2a", "a2a", "a2a"), ("agent_framework", "agent_framework", "agent_framework"),
        ("google", "google_adk", "google_adk"), ("google", "google_adk_internals", "google_adk"),
        ("langgraph", "langgraph", "langgraph"), ("agents", "openai_agents", "openai_agents"),
        ("agents", "openai_agents_internals", "openai_agents"),
        ("pydantic_ai", "pydantic_ai", "pydantic_ai")]],
    *[(hidden, f"import handoff_codec.integrations.{module}",
       f"pip install 'handoff-codec[{extra}]'") for hidden, module, extra in [
        ("a2a", "a2a", "a2a"), ("agent_framework", "agent_framework", "agent-framework"),
        ("langgraph", "langgraph", "langgraph"), ("pydantic_ai", "pydantic_ai", "pydantic-ai")]],
]


@pytest.mark.parametrize(("hidden", "statement", "extra"), CASES)
def test_an_import_without_its_extra_names_the_extra(hidden: str, statement: str,
                                                     extra: str) -> None:
    code = f"import sys; sys.modules[{hidden!r}] = None\n{statement}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 1
    assert extra in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(("url", "extra"), [
    ("postgresql://127.0.0.1/test", "handoff-codec[postgres]"),
    ("sqlite:////nonexistent/x.db", "give the SQLite file's path"),
])
def test_migrate_without_sqlalchemy_names_the_extra(url: str, extra: str) -> None:
    code = ("import sys; sys.modules['sqlalchemy'] = None\n"
            "from handoff_codec.cli import main\n"
            f"sys.exit(main(['migrate', '--dry-run', {url!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert extra in done.stderr
