"""Encode and decode speed against openai-agents, on the same 10,000-item transcript.

    python -m benchmarks.codec [--items 10000] [--repeat 7]

Prints median times and the median of paired ratios (SDK time / our time,
runs alternating: above 1 means we are faster), and the cold import time of
handoff_codec. Timings on a shared machine are noisy; compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import handoff_codec

WORDS = (
    "the agent asked for the invoice number and the user replied with the order "
    "details so billing can check the refund policy before the handoff"
).split()


def transcript(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """A mixed transcript: messages (some multi-line, some empty), tool calls and outputs."""
    rng = random.Random(seed)

    def text(words: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(words))

    items: list[dict[str, Any]] = []
    while len(items) < count:
        kind = rng.random()
        if kind < 0.4:
            items.append({"role": "user", "content": text(rng.randint(20, 50))})
        elif kind < 0.6:
            lines = [text(rng.randint(5, 12)) for _ in range(rng.randint(2, 5))]
            items.append({"role": "assistant", "content": "\n".join(lines)})
        elif kind < 0.65:
            items.append({"role": "assistant", "content": ""})
        else:
            call_id = f"call_{len(items)}"
            items.append(
                {
                    "type": "function_call",
                    "call_id": call_id,
                    "name": "lookup_order",
                    "arguments": json.dumps({"query": text(rng.randint(3, 10))}),
                }
            )
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": text(rng.randint(10, 30)),
                }
            )
    return items[:count]


def paired_medians(
    ours: Callable[[], object], theirs: Callable[[], object], repeat: int
) -> tuple[float, float, float]:
    """Median times of both, run alternately, and the median of the per-pair ratios."""
    our_times, their_times = [], []
    for _ in range(repeat):
        for func, times in ((ours, our_times), (theirs, their_times)):
            start = time.perf_counter()
            func()
            times.append(time.perf_counter() - start)
    ratios = [t / o for o, t in zip(our_times, their_times, strict=True)]
    return statistics.median(our_times), statistics.median(their_times), statistics.median(ratios)


def import_seconds(statement: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    from agents.handoffs.history import _build_summary_message, _extract_nested_history_transcript

    items = transcript(args.items)
    ours = handoff_codec.summarize(items)
    theirs = _build_summary_message(items)  # type: ignore[arg-type]
    size = sum(len(json.dumps(item)) for item in items) / len(items)
    print(
        f"transcript: {len(items)} items, {size:.0f} JSON characters per item, "
        f"summary {len(ours['content']) / 1e6:.2f} MB"
    )
    assert handoff_codec.loads(ours["content"]) == items  # warm the parser caches
    rows = [
        ("encode", lambda: handoff_codec.dumps(items), lambda: _build_summary_message(items)),  # type: ignore[arg-type]
        (
            "decode",
            lambda: handoff_codec.loads(ours["content"]),
            lambda: _extract_nested_history_transcript(theirs),
        ),
        (
            "decode --strict",
            lambda: handoff_codec.loads(ours["content"], strict=True),
            lambda: _extract_nested_history_transcript(theirs),
        ),
    ]
    print(f"{'operation':<16}{'handoff_codec':>16}{'openai-agents':>16}{'speed-up':>10}")
    for name, our_func, their_func in rows:
        our_time, their_time, ratio = paired_medians(our_func, their_func, args.repeat)
        print(f"{name:<16}{our_time * 1e3:>13.1f} ms{their_time * 1e3:>13.1f} ms{ratio:>9.2f}x")

    baseline = import_seconds("pass", args.repeat)
    ours_import = import_seconds("import handoff_codec", args.repeat)
    agents_import = import_seconds("import agents", args.repeat)
    print(
        f"cold import: handoff_codec {ours_import * 1e3:.0f} ms, "
        f"agents {agents_import * 1e3:.0f} ms, "
        f"bare interpreter {baseline * 1e3:.0f} ms (medians of {args.repeat})"
    )


if __name__ == "__main__":
    main()
