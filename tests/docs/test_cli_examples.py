"""Every command line the docs show runs: an example with its output (a sample) is run and
prints that output, counts included; one without (it names servers the docs imagine) is a
command line the CLI's parser takes.

What varies from run to run (a time, a rate, a path) is written ``...`` in the sample: on
its own line, any lines; in a line, any text.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# private: the parser alone checks an example's flags without running it against the
# servers it names.
from handoff_codec.cli import _parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^ *```[a-z]*\n(.*?)^ *```", re.M | re.S)
# The files the samples read, as the docs name them (from the run's directory).
FILES = {"examples/sessions.db": ROOT / "examples" / "sessions.db",
         "examples/summary-0.6.0.txt": ROOT / "examples" / "summary-0.6.0.txt",
         "sessions.jsonl": Path(__file__).parent / "files" / "sessions.jsonl"}
HOME = "/home/me/project"  # where the samples say they ran


PROMPT = re.compile(r"^\s*[\w.-]*\$ ")  # "$ " or "host-b$ "


def _examples() -> list[tuple[str, str, list[str]]]:
    """(doc, command line, the sample's lines) for every handoff-codec command in a block."""
    found = []
    for path in DOCS:
        for block in BLOCK.findall(path.read_text(encoding="utf-8")):
            lines = block.splitlines()
            index = 0
            while index < len(lines):
                line = PROMPT.sub("", lines[index], count=1)
                prompted = line != lines[index]
                index += 1
                if not line.startswith("handoff-codec "):
                    continue
                command = line
                while command.endswith("\\") and index < len(lines):
                    command = command[:-1] + lines[index].strip()
                    index += 1
                sample = []
                if prompted:
                    while index < len(lines) and not PROMPT.match(lines[index]):
                        sample.append(lines[index])
                        index += 1
                if "[" in command.split("#")[0] and not sample:
                    continue  # a synopsis (handoff-codec migrate PATH [--dry-run] ...)
                found.append((path.name, command, sample))
    return found


def _argv(command: str) -> list[str]:
    """The command's arguments, up to a shell redirection or pipe."""
    argv = shlex.split(command, comments=True)[1:]
    for index, word in enumerate(argv):
        if word in (">", ">>", "|", "2>", "&&"):
            return argv[:index]
    return argv


EXAMPLES = _examples()


def _pattern(sample: list[str]) -> re.Pattern[str]:
    parts = []
    for line in sample:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(map(re.escape, line.split("..."))) + r"\n")
    return re.compile("".join(parts))


def _run(command: str, where: Path) -> str:
    for name, source in FILES.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, where / name)
    done = subprocess.run([sys.executable, "-m", "handoff_codec", *_argv(command)], cwd=where,
                          capture_output=True, text=True, timeout=300)
    return (done.stdout + done.stderr).replace(str(where), HOME)


def test_the_docs_have_samples() -> None:
    assert sum(bool(sample) for _, _, sample in EXAMPLES) >= 4


@pytest.mark.parametrize(("printed", "matches"), [
    ("  rows scanned:     22\nnext: x\n", True),
    ("  rows scanned:     23\nnext: x\n", False),  # a count the docs do not show
    ("  rows scanned:     22\n", False),
    ("  rows scanned:     22\nnext: x\nmore\n", False),
])
def test_a_sample_is_matched_count_by_count(printed: str, matches: bool) -> None:
    assert bool(_pattern(["  rows scanned:     22", "next: x"]).fullmatch(printed)) is matches


def test_dots_stand_for_what_varies() -> None:
    sample = ["  backup: x.bak-....jsonl", "..."]
    assert _pattern(sample).fullmatch("  backup: x.bak-20261207T1900Z.jsonl\nlines\nmore\n")


@pytest.mark.parametrize(("doc", "command", "sample"),
                         [example for example in EXAMPLES if example[2]],
                         ids=lambda value: value if isinstance(value, str) else "")
def test_a_sample_prints_what_the_docs_show(tmp_path: Path, doc: str, command: str,
                                           sample: list[str]) -> None:
    printed = _run(command, tmp_path)
    assert _pattern(sample).fullmatch(printed), (
        f"{doc}: {command}\nthe docs show:\n" + "\n".join(sample) + f"\nit printed:\n{printed}")


@pytest.mark.parametrize(("doc", "command"),
                         [example[:2] for example in EXAMPLES if not example[2]])
def test_a_command_line_parses(doc: str, command: str) -> None:
    try:
        _parser().parse(_argv(command))
    except SystemExit as exit_:  # --help, --version
        assert exit_.code == 0, f"{doc}: {command}"
