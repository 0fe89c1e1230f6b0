#!/usr/bin/env python3
"""Run the nested-history conformance suite against a decoder or an encoder.

    python conformance/run.py --decoder CMD [--strict] [--vectors DIR] [--only decode/valid,...]
    python conformance/run.py --encoder CMD [--vectors DIR] [--only encode/...]

CMD is a shell-split command line. A decoder reads a summary on stdin and
writes the JSON array of items on stdout (or an object ``{"items": [...],
"recoveries": [{"line", "kind", "lost"}, ...]}``), exit 0. For text it must
refuse it exits 65 (``REFUSED``) and writes one JSON object, ``{"error":
{"line": L, "column": C, "reason": "..."}}``; any other outcome (another
exit status, a refusal without that object, a timeout) is a crash, and a
crash fails every vector, refused ones included. ``--strict`` says the
decoder reads the current format only: it must refuse the
``decode/strict-invalid`` vectors too (a lenient one reads their items), and
the ``decode/legacy`` ones are not run. An encoder reads a JSON array of items
on stdin and writes the summary text on stdout.
conformance/README.md states the whole protocol.

One line per failure (the vector, what was expected, what came back), then
``N passed, M failed`` (``, K skipped`` when vectors were not scored, and
what the other mode's vectors would add: ``; 79 encode vectors not run
(they need --encoder)``); the exit status is 0 iff M is 0. Standard library
only, so any port can run it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

# A program under test, as a function: stdin bytes -> (exit status, stdout, stderr).
Call = Callable[[bytes], "tuple[int, bytes, bytes]"]

# A decoder's exit status for text it refuses (sysexits.h's EX_DATAERR: "the input
# data was incorrect"); 1, 2 and 101 are what runtimes exit with when a program
# crashes (Python, Node and Java; Go; Rust), so none of them can mean a refusal.
REFUSED = 65
DECODE_CATEGORIES = ("decode/valid", "decode/invalid", "decode/strict-invalid", "decode/legacy")
# What a strict decoder (``--strict``: the current format only) is run on.
STRICT_CATEGORIES = ("decode/valid", "decode/invalid", "decode/strict-invalid")
ENCODE_CATEGORIES = ("encode",)
UNSCORED = "impl-defined"
SHOWN = 400  # characters of a value shown in a failure line


@dataclass(frozen=True)
class Vector:
    """One test: its name (path under the suite, no suffix) and its files."""

    name: str
    category: str
    input: Path
    expected: Path | None = None
    recoveries: Path | None = None


@dataclass
class Result:
    """What a run found: counts, one line per failure, one line per unscored outcome."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    per_category: dict[str, list[int]] = field(default_factory=dict)
    not_run: str = ""  # the other mode's vectors this run left out, said on the last line

    def summary(self) -> str:
        """The last line: ``N passed, M failed``, ``, K skipped`` when any, and the vectors
        of the other mode that were not run."""
        line = f"{self.passed} passed, {self.failed} failed"
        line += f", {self.skipped} skipped" if self.skipped else ""
        return line + (f"; {self.not_run}" if self.not_run else "")


def category_of(name: str) -> str:
    """``decode/valid``, ``decode/invalid``, ``decode/strict-invalid``, ``decode/legacy``,
    ``encode`` or ``impl-defined``."""
    parts = name.split("/")
    return "/".join(parts[:2]) if parts[0] == "decode" else parts[0]


def _selected(name: str, only: list[str] | None) -> bool:
    return only is None or any(name == o or name.startswith(o.rstrip("/") + "/") for o in only)


def discover(root: Path, mode: str, only: list[str] | None = None) -> list[Vector]:
    """The vectors under ``root`` that a ``mode`` ("decoder" or "encoder") program runs."""
    vectors: list[Vector] = []
    if mode == "decoder":
        tops = [root / "decode", root / UNSCORED]
        inputs = (p for top in tops if top.is_dir() for p in top.rglob("*.txt"))
    else:
        top = root / "encode"
        inputs = (p for p in (top.rglob("*.json") if top.is_dir() else ())
                  if not p.name.endswith(".recoveries.json"))
    for path in sorted(inputs):
        name = path.relative_to(root).with_suffix("").as_posix()
        category = category_of(name)
        if mode == "decoder" and category not in (*DECODE_CATEGORIES, UNSCORED):
            continue
        if not _selected(name, only):
            continue
        if mode == "encoder":
            vectors.append(Vector(name, category, path, path.with_suffix(".txt")))
            continue
        expected = path.with_suffix(".json")
        recoveries = path.with_name(path.stem + ".recoveries.json")
        vectors.append(Vector(name, category, path,
                              expected if expected.is_file() else None,
                              recoveries if recoveries.is_file() else None))
    return vectors


def same(a: object, b: object) -> bool:
    """JSON equality that tells true from 1 and 1 from 1.0, and keeps list order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def show(value: object) -> str:
    """A value for a failure line: compact JSON (or repr), cut to SHOWN characters."""
    if isinstance(value, bytes):
        text = repr(value.decode("utf-8", "replace"))
    else:
        try:
            text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def _recovery_set(value: object) -> list[tuple[int, str, bool]] | None:
    """The recoveries as sorted (line, kind, lost), or None unless each is a
    ``{"line": int, "kind": str, "lost": bool}`` (booleans, not ``"true"`` or 1)."""
    if not isinstance(value, list):
        return None
    out = []
    for r in value:
        if not isinstance(r, dict):
            return None
        line, kind, lost = r.get("line"), r.get("kind"), r.get("lost")
        if (not isinstance(line, int) or isinstance(line, bool) or line < 1
                or not isinstance(kind, str) or not isinstance(lost, bool)):
            return None
        out.append((line, kind, lost))
    return sorted(out)


def refusal(code: int, out: bytes) -> dict[str, object] | None:
    """The error object of a refusal (exit ``REFUSED``, ``{"error": {"line", "column",
    "reason"}}`` on stdout), or None when the outcome is no refusal."""
    if code != REFUSED:
        return None
    try:
        doc = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    error = doc.get("error") if isinstance(doc, dict) and set(doc) == {"error"} else None
    if not isinstance(error, dict):
        return None
    places = [error.get("line"), error.get("column")]
    if not all(p is None or (isinstance(p, int) and not isinstance(p, bool) and p >= 1)
               for p in places):
        return None
    reason = error.get("reason")
    return error if isinstance(reason, str) and reason.strip() else None


def _crash(code: int, out: bytes, err: bytes) -> str:
    """What a crash looked like, for a failure line."""
    if code == REFUSED:
        return (f"exit {REFUSED} without the error object {{\"error\": {{\"line\", "
                f"\"column\", \"reason\"}}}} (a crash), stdout {show(out)}")
    return f"exit {code} (a crash), stderr {show(err.strip())}"


def _refused(error: dict[str, object]) -> str:
    line, column = error.get("line"), error.get("column")
    place = f" at {line}:{column}" if line is not None else ""
    return f"refused{place}: {show(error.get('reason'))}"


def _check_decoded(vector: Vector, code: int, out: bytes, err: bytes,
                   strict: bool = False) -> str | None:
    """None when the decoder (``strict``: of the current format only) did what ``vector``
    asks, else the failure line."""
    name = vector.name
    error = refusal(code, out)
    if vector.category == "decode/invalid" or (
            strict and vector.category == "decode/strict-invalid"):
        if error is not None:
            return None
        got = f"exit 0, stdout {show(out)}" if code == 0 else _crash(code, out, err)
        return f"FAIL {name}: expected a refusal (exit {REFUSED} with an error object), got {got}"
    if error is not None:
        return f"FAIL {name}: expected exit 0 with the items, got {_refused(error)}"
    if code != 0:
        return f"FAIL {name}: expected exit 0 with the items, got {_crash(code, out, err)}"
    try:
        doc = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return f"FAIL {name}: expected a JSON array on stdout, got {show(out)} ({exc})"
    recoveries = None
    if isinstance(doc, dict):
        if "items" not in doc:
            return (f"FAIL {name}: expected a JSON array, or an object with items and "
                    f"recoveries, got {show(doc)}")
        recoveries = doc.get("recoveries")
        doc = doc["items"]
        if not isinstance(recoveries, list):
            return (f"FAIL {name}: expected recoveries as a list of {{line, kind, lost}} (a "
                    "decoder that reports none writes the bare array), got "
                    f"{show(recoveries)}")
    assert vector.expected is not None
    expected = json.loads(vector.expected.read_text(encoding="utf-8"))
    if not same(doc, expected):
        return f"FAIL {name}: expected {show(expected)}, got {show(doc)}"
    if recoveries is None:
        return None
    want: object = []
    if vector.recoveries is not None:
        want = json.loads(vector.recoveries.read_text(encoding="utf-8"))
    got_set, want_set = _recovery_set(recoveries), _recovery_set(want)
    if got_set is None:
        return (f"FAIL {name}: expected recoveries as [{{line: integer, kind: string, lost: "
                f"boolean}}], got {show(recoveries)}")
    if got_set != want_set:
        return (f"FAIL {name}: expected recoveries {show([list(r) for r in want_set or []])}, "
                f"got {show([list(r) for r in got_set])}")
    return None


def _check_encoded(vector: Vector, code: int, out: bytes, err: bytes) -> str | None:
    assert vector.expected is not None
    expected = vector.expected.read_bytes()
    if code != 0:
        return (f"FAIL {vector.name}: expected exit 0 with the text, got exit {code}, "
                f"stderr {show(err.strip())}")
    if out != expected:
        return f"FAIL {vector.name}: expected {show(expected)}, got {show(out)}"
    return None


def _note_unscored(vector: Vector, code: int, out: bytes, err: bytes) -> str | None:
    """What the decoder did with an unscored vector; None for a crash (a failure)."""
    if code == 0:
        return f"NOTE {vector.name}: accepted, {show(out.decode('utf-8', 'replace').strip())}"
    error = refusal(code, out)
    return None if error is None else f"NOTE {vector.name}: {_refused(error)}"


def run(vectors: Iterable[Vector], call: Call, mode: str, *, jobs: int = 1,
        strict: bool = False) -> Result:
    """Run every vector through ``call`` and score it; impl-defined vectors are skipped,
    unless the program crashes on one (a failure: accepting and refusing are its choice).
    ``strict``: the decoder reads the current format only, so it must refuse the
    ``decode/strict-invalid`` vectors."""
    vectors = list(vectors)
    result = Result()

    def one(vector: Vector) -> tuple[Vector, tuple[int, bytes, bytes]]:
        return vector, call(vector.input.read_bytes())

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(one, vectors))
    for vector, (code, out, err) in outcomes:
        counts = result.per_category.setdefault(vector.category, [0, 0])
        if vector.category == UNSCORED:
            note = _note_unscored(vector, code, out, err)
            if note is not None:  # the implementation's choice, either way
                result.skipped += 1
                result.notes.append(note)
                continue
            # A crash is no choice: it fails an unscored vector too.
            counts[1] += 1
            result.failed += 1
            result.failures.append(f"FAIL {vector.name}: expected the items or a refusal, got "
                                   f"{_crash(code, out, err)}")
            continue
        failure = (_check_decoded(vector, code, out, err, strict) if mode == "decoder"
                   else _check_encoded(vector, code, out, err))
        counts[1] += 1
        if failure is None:
            result.passed += 1
            counts[0] += 1
        else:
            result.failed += 1
            result.failures.append(failure)
    return result


def command_call(command: str, timeout: float) -> Call:
    """A Call that runs ``command`` (shell-split) once per vector."""
    argv = shlex.split(command)

    def call(data: bytes) -> tuple[int, bytes, bytes]:
        try:
            proc = subprocess.run(argv, input=data, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return -1, b"", f"timed out after {timeout} s".encode()
        except OSError as exc:
            return -1, b"", str(exc).encode()
        return proc.returncode, proc.stdout, proc.stderr

    return call


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    program = parser.add_mutually_exclusive_group(required=True)
    program.add_argument("--decoder", metavar="CMD", help="the decoder command line")
    program.add_argument("--encoder", metavar="CMD", help="the encoder command line")
    parser.add_argument("--vectors", metavar="DIR", default=str(HERE),
                        help="a folder in the suite's layout (default: this suite)")
    parser.add_argument("--only", metavar="LIST",
                        help="comma-separated categories or folders, "
                             "e.g. decode/valid,decode/invalid")
    parser.add_argument("--strict", action="store_true",
                        help="the decoder reads the current format only: it must refuse "
                             "decode/strict-invalid, and decode/legacy is not run")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1),
                        help="vectors run at once (default: CPUs, at most 4)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds per vector (default 30)")
    parser.add_argument("--verbose", action="store_true",
                        help="also print what impl-defined vectors did")
    args = parser.parse_args(argv)

    root = Path(args.vectors)
    if not root.is_dir():
        parser.error(f"--vectors {args.vectors}: not a folder")
    only = [o.strip().strip("/") for o in args.only.split(",") if o.strip()] if args.only else None
    mode = "decoder" if args.decoder else "encoder"
    if args.strict and mode != "decoder":
        parser.error("--strict goes with --decoder")
    vectors = discover(root, mode, only)
    if args.strict:
        vectors = [v for v in vectors if v.category in (*STRICT_CATEGORIES, UNSCORED)]
    if not vectors:
        parser.error(f"no {mode} vectors under {root}"
                     + (f" matching {args.only}" if only else ""))
    result = run(vectors, command_call(args.decoder or args.encoder, args.timeout), mode,
                 jobs=args.jobs, strict=args.strict)
    other = "encoder" if mode == "decoder" else "decoder"
    left_out = discover(root, other, only)
    if left_out:
        noun = "encode" if other == "encoder" else "decode"
        vectors_ = "vector" if len(left_out) == 1 else "vectors"
        result.not_run = f"{len(left_out)} {noun} {vectors_} not run (they need --{other})"
    for line in result.failures:
        print(line)
    if args.verbose:
        for line in result.notes:
            print(line)
    print(result.summary())
    return 0 if result.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
