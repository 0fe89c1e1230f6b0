#!/usr/bin/env python3
"""Regenerate the results matrix in docs/conformance.md.

    python conformance/matrix.py            # every reader; rewrites the table
    python conformance/matrix.py --print    # print the table only
    python conformance/matrix.py --ours-only  # rerun only handoff-codec's rows

For each openai-agents release in RELEASES it makes a throwaway venv
(``uv venv`` + ``uv pip install openai-agents==X``; uv from PATH or the
project's .venv), runs conformance/run.py with conformance/decoders/openai_agents.py
under it, and deletes the venv. Our two modes run with the interpreter running
this script. The table has one row per reader and one column per category,
each cell ``passed/total``; ports that cannot be built here get a row with the
reason. The table sits between the BEGIN/END comments of docs/conformance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOC = ROOT / "docs" / "conformance.md"
sys.path.insert(0, str(HERE))

import run as runner  # noqa: E402

RELEASES = ["0.6.0", "0.6.7", "0.10.5", "0.14.8", "0.17.0", "0.17.1", "0.18.2", "0.18.3",
            "0.19.4", "0.20.0", "0.24.0"]
CATEGORIES = ["decode/valid", "decode/invalid", "decode/legacy"]
BEGIN, END = "<!-- BEGIN MATRIX (conformance/matrix.py) -->", "<!-- END MATRIX -->"
HEADER = "| reader | " + " | ".join(CATEGORIES) + " |"
NOT_BUILT = [
    ("openai-agents-js (handoffHistory.ts, in development)",
     "not released: @openai/agents-core 0.20.0, the latest on npm, has no nested history"),
    ("UltraEmbeddedLab/openai-agent-sdk-rust", "crates.io is out of reach from this machine"),
    ("scalarian/openai-agents-rust", "crates.io is out of reach from this machine"),
    ("denggeng/openai-agents-go-plus", "the Go module proxy is out of reach from this machine"),
    ("zzir/agents-go", "the Go module proxy is out of reach from this machine"),
]


def cells(result: runner.Result) -> list[str]:
    """``passed/total`` for each category, in CATEGORIES order."""
    return [f"{p}/{t}" for p, t in (result.per_category.get(c, [0, 0]) for c in CATEGORIES)]


def row(reader: str, values: list[str]) -> str:
    return f"| {reader} | " + " | ".join(values) + " |"


def table(rows: list[str]) -> str:
    sep = "|" + "---|" * (len(CATEGORIES) + 1)
    return "\n".join([HEADER, sep, *rows])


def score(command: str, jobs: int, only: list[str] | None = None) -> runner.Result:
    """Score a decoder adapter; ``--batch`` reads every vector in one process.

    One process per vector (the protocol) would start the Agents SDK 270 times
    per release, about an hour for the matrix on 2 loaded cores; the batch
    mode calls the same function the adapter's single-vector mode calls.
    """
    vectors = runner.discover(HERE, "decoder", only or CATEGORIES)
    inputs = [v.input.read_bytes().decode("utf-8") for v in vectors]
    proc = subprocess.run([*shlex.split(command), "--batch"], input=json.dumps(inputs),
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} --batch failed: {proc.stderr[-2000:]}")
    answers = {text.encode("utf-8"): (code, out.encode("utf-8"), b"")
               for text, (code, out) in zip(inputs, json.loads(proc.stdout), strict=True)}
    return runner.run(vectors, answers.__getitem__, "decoder", jobs=jobs)


def _uv() -> str:
    found = shutil.which("uv") or str(ROOT / ".venv" / "bin" / "uv")
    if not Path(found).exists():
        raise SystemExit("uv not found: pip install uv")
    return found


def release_row(version: str, jobs: int) -> str:
    tmp = tempfile.mkdtemp(prefix=f"oa-conf-{version}-")
    try:
        venv = Path(tmp) / "venv"
        uv = _uv()
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
        py = venv / "bin" / "python"
        proc = subprocess.run([uv, "pip", "install", "-q", "--python", str(py),
                               f"openai-agents=={version}"], capture_output=True, text=True)
        if proc.returncode != 0:
            return row(f"openai-agents {version}",
                       [f"not installed: {proc.stderr.strip()[-80:]}"] * 3)
        adapter = HERE / "decoders" / "openai_agents.py"
        result = score(f"{py} {adapter}", jobs)
        return row(f"openai-agents {version}", cells(result))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ours_rows(jobs: int) -> list[str]:
    adapter = HERE / "decoders" / "handoff_codec.py"
    lenient = score(f"{sys.executable} {adapter}", jobs)
    strict = score(f"{sys.executable} {adapter} --strict", jobs)
    return [row("handoff-codec (lenient)", cells(lenient)),
            row("handoff-codec --strict", cells(strict))]


def build(jobs: int, releases: list[str]) -> str:
    rows = ours_rows(jobs)
    for version in releases:
        rows.append(release_row(version, jobs))
        print(rows[-1], file=sys.stderr)
    rows += [row(name, [f"not built here: {why}"] + ["-"] * (len(CATEGORIES) - 1))
             for name, why in NOT_BUILT]
    return table(rows)


def current_rows(doc: str) -> list[str]:
    """The rows of the table now in ``doc``."""
    block = doc.split(BEGIN, 1)[1].split(END, 1)[0].strip().splitlines()
    return block[2:]


def replace_table(doc: str, new: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(doc):
        raise SystemExit(f"{DOC}: no {BEGIN} ... {END} block")
    return pattern.sub(lambda _: f"{BEGIN}\n{new}\n{END}", doc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print", action="store_true",
                        help="print the table, do not write the doc")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--releases", nargs="*", default=RELEASES)
    parser.add_argument("--ours-only", action="store_true",
                        help="rerun only handoff-codec's two rows; keep the others as they are")
    args = parser.parse_args(argv)
    if args.ours_only:
        rows = current_rows(DOC.read_text(encoding="utf-8"))
        new = table(ours_rows(args.jobs) + rows[2:])
    else:
        new = build(args.jobs, args.releases)
    if args.print:
        print(new)
        return 0
    DOC.write_text(replace_table(DOC.read_text(encoding="utf-8"), new), encoding="utf-8")
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
