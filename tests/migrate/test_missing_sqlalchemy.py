"""After a base install (no SQLAlchemy), a SQL store URL names the extra to install, as a
missing Redis driver does: one line, exit 2, nothing connected to."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.migrate_support import ROOT, cli_env

# Runs the CLI with SQLAlchemy hidden, as a base install has it.
WITHOUT_SQLALCHEMY = """
import sys
class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name == "sqlalchemy" or name.startswith("sqlalchemy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Hidden())
from handoff_codec.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(("url", "extra"), [
    ("postgresql://app@127.0.0.1:1/db", "'handoff-codec[postgres]'"),
    ("postgres://app@127.0.0.1:1/db", "'handoff-codec[postgres]'"),
    ("mysql://app@127.0.0.1:1/db", "'handoff-codec[mysql]'"),
    ("mariadb://app@127.0.0.1:1/db", "'handoff-codec[mysql]'"),
])
def test_a_sql_url_without_sqlalchemy_names_its_extra(url: str, extra: str) -> None:
    result = subprocess.run([sys.executable, "-c", WITHOUT_SQLALCHEMY, "migrate", url,
                             "--dry-run"], capture_output=True, text=True, env=cli_env(),
                            cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert f"pip install {extra}" in line and "SQLAlchemy" in line, line
