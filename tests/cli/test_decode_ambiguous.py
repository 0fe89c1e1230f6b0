"""``decode`` exits 3 on an ambiguous read, as on any lossy one, and names the writers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START

P, S, E = DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END
# What 0.6 to 0.17.0 wrote for [user "q", assistant "line1\n2. system: not a turn"].
AMBIGUOUS = "\n".join((P, S, "1. user: q", "2. assistant: line1", "2. system: not a turn", E))
# Bare roles alone: 0.6 to 0.17.0 and 0.17.1 to 0.19 both wrote them.
BARE = "\n".join((P, S, "1. user: q", "2. assistant", E))


def decode(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handoff_codec", "decode", *flags, str(path)],
                          capture_output=True, text=True, timeout=60)


def test_an_ambiguous_read_exits_3_unless_allow_loss(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_text(AMBIGUOUS)
    result = decode(path, "--json")
    assert result.returncode == 3
    document = json.loads(result.stdout)
    assert [r["kind"] for r in document["recoveries"]] == ["continuation", "ambiguous"]
    assert document["recoveries"][1]["lost"] is True
    assert f"{path}:5: ambiguous: a line numbered out of sequence, read as content" \
        in result.stderr
    # the reading with the line as a record is among the other readings offered
    assert any(len(other["items"]) == 3 and other["items"][2] == {"role": "system",
                                                                  "content": "not a turn"}
               for other in document["candidates"])
    assert decode(path, "--allow-loss").returncode == 0


def test_the_report_names_the_writers_and_what_they_cannot_hold(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_text(BARE)
    result = decode(path, "--json", "--allow-loss")
    document = json.loads(result.stdout)
    assert document["format"] == "legacy"
    # The one other reading: 0.6 to 0.17.0 wrote the bare role raw in the user's content.
    assert [c["items"] for c in document["candidates"]] == [
        [{"role": "user", "content": "q\n2. assistant"}]]
    assert document["writers"] == ["openai-agents 0.6.0 to 0.17.0 (and the Rust and Go ports "
                                   "that copy it)", "openai-agents 0.17.1 to 0.19.x",
                                   "openai-agents-js (a development commit, never released)"]
    # Said once: the writers, and how many things they could not record (--json lists them).
    assert f"{path}: an older format, written by openai-agents 0.6.0 to 0.17.0 (" \
        in result.stderr
    count = len(document["unkept"])
    assert f"{path}: {count} things that writer could not record are not in the text " \
        in result.stderr
    assert any("whether an empty turn's content was None or ''" in u for u in document["unkept"])
    for jargon in ("cannot hold:", "format: legacy", "written by:", "unkept:"):
        assert jargon not in result.stderr
