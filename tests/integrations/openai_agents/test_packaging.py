"""The installed package: the wheel carries the grammar, and import stays light."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    return next(out.glob("handoff_codec-*.whl"))


def test_wheel_carries_the_grammar_and_the_replay_table(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "handoff_codec/grammar/summary.lark" in names
    assert "handoff_codec/grammar/legacy.lark" in names
    assert "handoff_codec/replay/profiles.json" in names


def test_wheel_works_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    script = (
        "import handoff_codec, pathlib; import handoff_codec.format as F;"
        f"assert str(pathlib.Path(handoff_codec.__file__)).startswith({str(target)!r});"
        "items = [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': None}];"
        "assert handoff_codec.loads(handoff_codec.dumps(items)) == items;"
        "assert handoff_codec.loads('\\n'.join([F.DEFAULT_PREAMBLE,"
        " F.DEFAULT_START, '1. user', F.DEFAULT_END]))"
        " == [{'role': 'user', 'content': ''}];"
        # the replay profiles are read from profiles.json, which the wheel must carry
        "from handoff_codec.replay import TARGETS, sanitize;"
        "fixed = [sanitize([{'role': 'user', 'content': ''}], target=t) for t in TARGETS];"
        "assert len(fixed) == len(TARGETS) == 5"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path, env=env, timeout=60)


def test_import_does_not_load_heavy_dependencies() -> None:
    script = (
        "import sys, handoff_codec;"
        "loaded = {m for m in ('lark', 'pydantic', 'openai', 'agents') if m in sys.modules};"
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, timeout=60)
