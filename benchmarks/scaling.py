"""Decoding time against input size: is it linear, also on hostile input?

    python -m benchmarks.scaling [--repeat 3] [--max-mb 100] [--only limits]

1. Realistic summaries of 1, 10 and 100 MB (the transcript of
   ``benchmarks.codec``), decoded in both modes. Ratio = time / time of 1 MB;
   linear time gives about 10 and 100.
2. Pathological inputs of 1 MB and 4 MB: 1 MB of ``:``, of ``(``, of digits
   followed by ``.``, and the shapes that made the grammar's regular
   expressions backtrack quadratically (an unclosed ``(name``), each inside a
   record and as the bare body. Printed: the 1 MB time over the time of the
   realistic 1 MB summary, and the 4 MB time over the 1 MB time (about 4 when
   linear, 16 when quadratic). Errors (DecodeError) count as results: what
   matters is how long the reader takes to give its answer.
3. Time and memory within the default limits (max_bytes 32 MiB, max_records
   100,000), lenient reads of 1, 4 and 16 MB of each family in ``FAMILIES``:
   CPU seconds per MB (on a machine shared with other work, CPU time says
   more than wall time; on an idle one they agree), the peak of traced
   memory (tracemalloc) over the input size, the share of it that the
   returned report (items and recoveries) still holds, and the share that
   the items alone hold (the list of dicts that ``decode`` returns: on text
   of many short records, more than 10 times the input by themselves), and
   ``beyond x``: the memory beyond the returned items (the peak minus what
   the items still hold after the read) over the input size. Each read runs
   in a fresh process. The targets: at most 0.5 s per MB, and at most 5
   times the input beyond the returned items, for every family.

Medians of ``--repeat`` runs. For sections 1 and 2 the codec is built with
max_bytes and max_records large enough for 100 MB; the defaults would refuse
it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

from handoff_codec import Codec, DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_START

from .codec import transcript

MB = 1 << 20
CODEC = Codec(max_bytes=256 * MB, max_records=10_000_000)
HEAD = f"{CODEC.preamble}\n{CODEC.start}\n"
TAIL = f"\n{CODEC.end}"

PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "':' in a record": lambda n: "1. " + ":" * n,
    "':' as the body": lambda n: ":" * n,
    "'(' in a record": lambda n: "1. " + "(" * n,
    "'(' as the body": lambda n: "(" * n,
    "digits+'.' in a record": lambda n: "1. " + "9" * n + ".",
    "digits+'.' as the body": lambda n: "9" * n + ".",
    "'1.' lines as the body": lambda n: "1.\n" * (n // 3),
    "unclosed '(name' in a record": lambda n: "1. x (" + "a" * n,
    "unclosed 'user ((((' in a record": lambda n: "1. user (" + "(" * n,
    "'[' in a JSON record": lambda n: '1. {"a": ' + "[" * n,
}


# Bodies of about n bytes that stay within the default limits (at most
# 90,000 numbered lines). Each starts with a record, so the lenient reader
# has a record for the other lines to continue.
FIRST = "1. user: a\n"
RECORDS = 90_000


def _numbered(n: int, line: Callable[[int], str], pad: str = "x") -> str:
    """About n bytes of RECORDS numbered lines (``line(i)``), padded with ``pad``."""
    lines = [line(i) for i in range(RECORDS)]
    width = max(0, n // RECORDS - max(map(len, lines)) - 1)
    return "".join(f"{text}{pad * width}\n" for text in lines)


def _shuffled(count: int) -> list[int]:
    numbers = list(range(2, count + 2))
    random.Random(0).shuffle(numbers)
    return numbers


_SHUFFLED: list[int] = _shuffled(RECORDS)
FAMILIES: dict[str, Callable[[int], str]] = {
    "newlines after one record": lambda n: FIRST + "\n" * n,
    "lines of x": lambda n: FIRST + "x\n" * (n // 2),
    "lines of ':'": lambda n: FIRST + ":\n" * (n // 2),
    "lines of 4-byte characters": lambda n: FIRST + "\U0001f600\n" * (n // 5),
    "one long line": lambda n: "1. user: " + "a" * n + "\n",
    "one long line of '('": lambda n: "1. user (" + "(" * n + "\n",
    "numbered lines, not records, out of order":
        lambda n: FIRST + _numbered(n, lambda i: f"{_SHUFFLED[i]}. item"),
    "records numbered out of order":
        lambda n: FIRST + _numbered(n, lambda i: f"{_SHUFFLED[i]}. user: turn"),
    "records all numbered 1 (renumbered)":
        lambda n: _numbered(n, lambda i: "1. user: turn"),
    "records in order (current format)":
        lambda n: _numbered(n, lambda i: f"{i + 1}. user: turn"),
    "bare roles in order":  # padded with spaces, which a bare role may end with
        lambda n: _numbered(n, lambda i: f"{i + 1}. assistant", pad=" ") + "\n",
    "numbered lines in order, not records": lambda n: _numbered(n, lambda i: f"{i + 1}. x"),
    "JSON arrays as text, all numbered 1": lambda n: _numbered(n, lambda i: "1. user: [1]"),
    "deep spill (nested markers)":
        lambda n: FIRST + f"{DEFAULT_START}\n" * (n // 48) + f"{DEFAULT_END}\n" * (n // 48),
    "spilled lines that look like records": lambda n: FIRST + "x\n" + _numbered(
        n, lambda i: f"{_SHUFFLED[i]}. user: turn"),
}


# Read before timing, so that no read pays for building a parser or compiling a
# pattern: the current format, and legacy records that take every path of the
# lenient reader (a bare role, a name holding ":", a typed record, JSON).
WARM_UPS = ("1. user: a", '1. user: a\n2. assistant\n2. user (a:b): c\n3. x: {}\n4. {"a": 1}')


def measure(family: str, size_mb: int, repeat: int) -> dict[str, object]:
    """One default-codec lenient read in this process: best seconds of ``repeat``, memory.

    ``peak`` is the traced peak during the read, ``result`` what the returned
    report (items and recoveries) still holds after it, ``items`` what its
    items alone hold.
    """
    codec = Codec()
    body = FAMILIES[family](size_mb * MB)
    text = f"{codec.preamble}\n{codec.start}\n{body}{codec.end}"
    for warm_up in WARM_UPS:  # build the parsers and the lenient reader's patterns
        codec.decode(HEAD + warm_up + TAIL)
    answer = "read"
    times, cpu_times = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        try:
            codec.decode(text)
        except DecodeError as exc:
            answer = f"DecodeError: {exc.msg[:40]}"
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu)
    tracemalloc.start()
    result = None
    with contextlib.suppress(DecodeError):
        result = codec.decode(text)
    held, peak = tracemalloc.get_traced_memory()
    items = None if result is None else result.items
    del result
    items_held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del items
    return {"bytes": len(text.encode("utf-8")), "seconds": min(times), "cpu": min(cpu_times),
            "peak": peak, "result": held, "items": items_held, "answer": answer}


def limits_table(max_mb: int, repeat: int) -> None:
    """Section 3: each family at 1, 4 and 16 MB, one fresh process per family and size."""
    sizes = [s for s in (1, 4, 16) if s <= max_mb]
    print("\nwithin the default limits: lenient read; CPU seconds per MB (best of", repeat,
          "runs), peak traced memory / input size, the part of it the result and its "
          "items alone hold, and the memory beyond the returned items / input size")
    print(f"{'family':<42}" + "".join(
        f" | {f'{s} MB: s/MB':>11} {'peak x':>6} {'result x':>8} {'items x':>7} {'beyond x':>8}"
        for s in sizes))
    worst = (0.0, "")
    for family in FAMILIES:
        cells = []
        for size_mb in sizes:
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.scaling", "--repeat", str(repeat),
                 "--measure", family, str(size_mb)],
                check=True, capture_output=True, text=True).stdout
            got = json.loads(out)
            size = float(got["bytes"])
            beyond = (float(got["peak"]) - float(got["items"])) / size
            worst = max(worst, (beyond, f"{family}, {size_mb} MB"))
            cells.append(f" | {float(got['cpu']) / (size / MB):11.3f} "
                         f"{float(got['peak']) / size:6.1f} {float(got['result']) / size:8.1f} "
                         f"{float(got['items']) / size:7.1f} {beyond:8.1f}")
        print(f"{family:<42}{''.join(cells)}  {got['answer']}", flush=True)
    verdict = "within" if worst[0] <= 5 else "OVER"
    print(f"memory beyond the returned items: at most {worst[0]:.1f}x the input ({worst[1]}), "
          f"{verdict} the 5x goal")


def median_time(text: str, strict: bool, repeat: int) -> float:
    """Median seconds to read ``text``; a DecodeError is an answer too."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with contextlib.suppress(DecodeError):
            CODEC.loads(text, strict=strict)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def realistic(size_mb: int, unit: list[dict[str, object]]) -> str:
    return CODEC.dumps(unit * size_mb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-mb", type=int, default=100)
    parser.add_argument("--only", choices=["realistic", "limits"],
                        help="realistic: sections 1 and 2; limits: section 3")
    parser.add_argument("--measure", nargs=2, metavar=("FAMILY", "MB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], int(args.measure[1]), args.repeat)))
        return
    if args.only != "limits":
        realistic_tables(args)
    if args.only != "realistic":
        limits_table(args.max_mb, args.repeat)


def realistic_tables(args: argparse.Namespace) -> None:
    """Sections 1 and 2."""

    # A transcript whose summary is about 1 MB.
    unit = transcript(400)
    while len(CODEC.dumps(unit).encode()) < MB:
        unit = transcript(len(unit) * 2)
    size = len(CODEC.dumps(unit).encode())
    unit = unit[: max(1, len(unit) * MB // size)]

    print("realistic summaries (median of", args.repeat, "runs)")
    print(f"{'size':>8} {'mode':>8} {'seconds':>9} {'ratio to 1 MB':>14}")
    base: dict[bool, float] = {}
    for size_mb in (s for s in (1, 10, 100) if s <= args.max_mb):
        text = realistic(size_mb, unit)
        for strict in (False, True):
            seconds = median_time(text, strict, args.repeat)
            base.setdefault(strict, seconds)
            mode = "strict" if strict else "lenient"
            print(f"{len(text.encode()) / MB:7.1f}M {mode:>8} {seconds:9.3f} "
                  f"{seconds / base[strict]:14.1f}", flush=True)

    print("\npathological inputs (lenient | strict)")
    print(f"{'input':<34} {'1 MB s':>8} {'/ real 1MB':>10} {'4MB/1MB':>8}"
          f" | {'1 MB s':>8} {'/ real 1MB':>10} {'4MB/1MB':>8}")
    for name, make in PATHOLOGICAL.items():
        cells = []
        for strict in (False, True):
            one = HEAD + make(MB) + TAIL
            four = HEAD + make(4 * MB) + TAIL
            t1 = median_time(one, strict, args.repeat)
            t4 = median_time(four, strict, args.repeat)
            cells.append(f"{t1:8.4f} {t1 / base[strict]:10.2f} {t4 / t1:8.1f}")
        print(f"{name:<34} {cells[0]} | {cells[1]}", flush=True)


if __name__ == "__main__":
    main()
