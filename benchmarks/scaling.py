"""Decoding time against input size: is it linear, also on hostile input?

    python -m benchmarks.scaling [--repeat 3] [--max-mb 100]

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

Medians of ``--repeat`` runs. The codec is built with max_bytes and
max_records large enough for 100 MB; the defaults would refuse it.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable

from handoff_codec import Codec, DecodeError

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
    args = parser.parse_args()

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
