"""The read path of one summary: per module of handoff_codec that ``decode`` enters, how many
function calls it makes there and how many distinct lines it runs, and the totals.

The summary is a text file, or by default the first row of
tests/fixtures/legacy_summaries.jsonl that openai-agents 0.6 or 0.14 wrote with a tool
call; ``--current N`` writes that row's first N transcript items in the current format
instead; a file's one final line break is dropped, as ``handoff-codec decode`` drops it.
The text is decoded once untraced (imports and first-use caches are not the read path;
``--cold`` counts them), then once under ``sys.setprofile`` (calls: frames entered, a
generator's resumption not counted again) and ``sys.settrace`` (lines). Code made at run
time (a dataclass's ``__init__``) has no file in the package and is not counted. A
``DecodeError`` is printed; the path up to it is counted all the same.

Run from the repository root::

    python tools/read_path.py [--current N] [--strict] [--engine fast|lark] [--cold] [FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import handoff_codec

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "legacy_summaries.jsonl"
PACKAGE = str(Path(handoff_codec.__file__).resolve().parent)
RESUMABLE = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


def default_row() -> dict[str, Any]:
    """The first 0.6 or 0.14 fixture row whose transcript holds a tool call."""
    with FIXTURES.open(encoding="utf-8") as rows:
        for line in rows:
            row: dict[str, Any] = json.loads(line)
            if row["version"].startswith(("0.6.", "0.14.")) and any(
                    item.get("type") == "function_call" for item in row["transcript"]):
                return row
    raise SystemExit(f"{FIXTURES}: no 0.6 or 0.14 row with a tool call")


def module_of(code: CodeType) -> str | None:
    """``handoff_codec.x.y`` for code in the package's files, else None."""
    path = code.co_filename
    if not path.startswith(PACKAGE):
        return None
    dotted = Path(path).relative_to(Path(PACKAGE).parent).with_suffix("").parts
    return ".".join(dotted[:-1] if dotted[-1] == "__init__" else dotted)


def outcome(text: str, **options: Any) -> str:
    """Decode ``text``: the format read, or the DecodeError."""
    try:
        return f"{handoff_codec.decode(text, **options).format.value} format"
    except handoff_codec.DecodeError as exc:
        return f"DecodeError: {exc}"


def trace(text: str, **options: Any) -> tuple[Counter[str], dict[str, set[int]], str]:
    """Decode ``text`` once under the profiler and the tracer: calls and lines per module,
    and the outcome (the format read, or the DecodeError)."""
    calls: Counter[str] = Counter()
    lines: dict[str, set[int]] = defaultdict(set)
    resumed: set[FrameType] = set()  # generator frames already counted

    def on_line(frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            module = module_of(frame.f_code)
            if module is not None:
                lines[module].add(frame.f_lineno)
        return on_line

    def on_call(frame: FrameType, event: str, arg: object) -> Any:
        return on_line if module_of(frame.f_code) is not None else None

    def on_profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or frame in resumed:
            return
        module = module_of(frame.f_code)
        if module is not None:
            calls[module] += 1
            if frame.f_code.co_flags & RESUMABLE:
                resumed.add(frame)

    sys.setprofile(on_profile)
    sys.settrace(on_call)
    try:
        read = outcome(text, **options)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return calls, lines, read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, help="a summary text file")
    parser.add_argument("--current", type=int, metavar="N",
                        help="the default row's first N items, written in the current format")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--engine", choices=("fast", "lark"), default="fast")
    parser.add_argument("--cold", action="store_true", help="no untraced decode first")
    args = parser.parse_args(argv)
    if args.file is not None:
        text = args.file.read_text(encoding="utf-8").removesuffix("\n")
        source = str(args.file)
    else:
        row = default_row()
        source = f"{FIXTURES.relative_to(ROOT)}: {row['version']} {row['case']}"
        text = row["summary"]["content"]
        if args.current is not None:
            text = handoff_codec.dumps(row["transcript"][:args.current])
            source += f", its first {args.current} items in the current format"
    options = {"strict": args.strict, "engine": args.engine}
    if not args.cold:
        outcome(text, **options)
    calls, lines, read = trace(text, **options)
    print(f"{source} ({len(text)} characters; decode strict={args.strict} "
          f"engine={args.engine}{', cold' if args.cold else ''}): {read}")
    width = max(map(len, lines.keys() | calls.keys() | {"total"}))
    print(f"{'module':<{width}}  {'calls':>6}  {'lines':>6}")
    for module in sorted(lines.keys() | calls.keys()):
        print(f"{module:<{width}}  {calls[module]:>6}  {len(lines[module]):>6}")
    total_lines = sum(map(len, lines.values()))
    print(f"{'total':<{width}}  {sum(calls.values()):>6}  {total_lines:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
