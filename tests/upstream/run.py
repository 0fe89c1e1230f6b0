"""Run the Agents SDK's own nested-history tests against handoff_codec's integration.

    python tests/upstream/run.py            # exit 0: every test passes but the listed ones

Downloads the source distribution of the pinned openai-agents release from the
package index (``pip download --no-deps --no-binary :all:``) into a cache
directory, extracts its ``tests/`` and ``pyproject.toml`` (for the SDK's pytest
settings), and runs the nested-history test files twice, with
``swap_plugin.py`` swapping in ``history_mapper`` and then
``nest_input_filter``. Nothing of the SDK's is copied into this repository.

A test may fail only if it is listed in ``EXPECTED_FAILURES`` (and in
README.md, with the reason): tests that pin a loss of the SDK's that
handoff_codec fixes. Exit status: 0 when no other test fails, 1 otherwise,
2 when the release cannot be downloaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

VERSION = "0.24.0"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = Path(os.environ.get("HANDOFF_CODEC_UPSTREAM_CACHE",
                            Path.home() / ".cache" / "handoff-codec" / "upstream"))
TEST_FILES = ("tests/test_extension_filters.py", "tests/test_handoff_history_duplication.py")
MODES = ("mapper", "filter")

_IMAGE = ("tests/test_extension_filters.py::"
          "test_nest_handoff_history_flattens_structured_content_without_stringifying")
EXPECTED_FAILURES: dict[str, str] = {
    _IMAGE: "pins the image part inside the summary text; handoff_codec forwards a message "
            "with media as an input item and the summary holds a reference to it",
}


class DownloadError(RuntimeError):
    """The release's source distribution could not be downloaded."""


@dataclass(frozen=True)
class Outcome:
    """One run of the SDK's tests with handoff_codec swapped in."""

    mode: str
    passed: int
    failed: tuple[str, ...]

    @property
    def unexpected(self) -> tuple[str, ...]:
        return tuple(test for test in self.failed if test not in EXPECTED_FAILURES)


def sdk_source(cache: Path = CACHE) -> Path:
    """The extracted source tree of openai-agents ``VERSION``, downloaded once."""
    tree = cache / f"openai_agents-{VERSION}"
    if (tree / ".complete").exists():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as download:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--disable-pip-version-check", "-q", "-d", download, f"openai-agents=={VERSION}"],
            capture_output=True, text=True, timeout=300)
        archives = list(Path(download).glob("*.tar.gz"))
        if result.returncode != 0 or not archives:
            last = (result.stderr.strip().splitlines() or ["no archive"])[-1]
            raise DownloadError(f"pip download openai-agents=={VERSION} failed: {last}")
        with tarfile.open(archives[0]) as archive:
            prefix = f"openai_agents-{VERSION}/"
            members = [m for m in archive.getmembers()
                       if m.name.startswith(prefix + "tests/")
                       or m.name == prefix + "pyproject.toml"]
            archive.extractall(download, members=members, filter="data")
        (Path(download) / tree.name / ".complete").touch()
        try:  # atomic: another process downloading at the same time may have won
            (Path(download) / tree.name).rename(tree)
        except OSError:
            if not (tree / ".complete").exists():
                raise
    return tree


def run_mode(tree: Path, mode: str) -> Outcome:
    """Run the nested-history tests with handoff_codec swapped in as ``mode``."""
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results.tsv"
        env = {**os.environ, "HANDOFF_CODEC_UPSTREAM_MODE": mode,
               "HANDOFF_CODEC_UPSTREAM_RESULTS": str(results),
               "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-offline-not-used"),
               "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
        env.pop("PYTEST_ADDOPTS", None)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "-p", "swap_plugin", *TEST_FILES],
            cwd=tree, env=env, capture_output=True, text=True, timeout=900)
        if not results.exists():
            tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-5:])
            raise RuntimeError(f"pytest ran no test in mode {mode}:\n{tail}")
        passed, failed = 0, []
        for line in results.read_text().splitlines():
            outcome, _, node = line.partition("\t")
            if outcome == "passed":
                passed += 1
            elif outcome == "failed":
                failed.append(node)
        return Outcome(mode, passed, tuple(failed))


def main() -> int:
    try:
        tree = sdk_source()
    except (DownloadError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"upstream: {exc}", file=sys.stderr)
        return 2
    outcomes = [run_mode(tree, mode) for mode in MODES]
    for outcome in outcomes:
        print(f"{outcome.mode}: {outcome.passed} passed, {len(outcome.failed)} failed "
              f"({len(outcome.failed) - len(outcome.unexpected)} listed in README.md)")
        for test in outcome.unexpected:
            print(f"  UNEXPECTED FAILURE: {test}")
    return 1 if any(o.unexpected for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
