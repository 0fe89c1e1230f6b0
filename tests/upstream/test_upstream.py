"""The Agents SDK's own nested-history tests, run against our integration (see run.py)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("agents")

from tests.upstream import run


@pytest.mark.upstream
@pytest.mark.parametrize("mode", run.MODES)  # one test each, so that xdist runs them side by side
def test_sdk_nested_history_suite_passes_with_handoff_codec(mode: str) -> None:
    try:
        tree = run.sdk_source()
    except run.DownloadError as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"package index unreachable: {exc}")
    outcome = run.run_mode(tree, mode)
    assert outcome.passed > 100, outcome
    assert outcome.unexpected == (), f"{mode}: {outcome.unexpected}"
