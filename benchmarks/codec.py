"""Encode, decode and flatten speed against openai-agents 0.24, and the json floor.

    python -m benchmarks.codec [--items 10000] [--repeat 15] [--json]

Each row times handoff_codec, the Agents SDK's own functions
(``agents.handoffs.history``) and, where it applies, the json module on the
same items, in turns within one process: every repetition runs each once,
the order rotating, so that a slow moment of a shared machine hits all of
them. Printed: median times, the median of the per-repetition ratios
(``speed-up`` = SDK time / our time, above 1 means we are faster; ``x json``
= our time / json time, the cost over the json module's C code), and the cold
import time of handoff_codec with the heavy modules it must not load.

The transcript mixes, like a real one: 70% one-line messages with ":" and
"()" in them, 10% multi-line messages, 5% empty ones, 15% function calls and
their outputs. Both readers read the same text, the SDK's own summary.
``decode (legacy)`` reads 200 summaries of 5 to 50 turns as openai-agents 0.6
to 0.19 wrote them (those that ``benchmarks.migrate`` migrates), one call per
summary; the SDK's reader drops what it cannot read of them, ours reads it all.
Real handoffs are small: the ``per call`` rows read 300, 200 and 100
distinct summaries of 1, 5 and 20 items (written by the SDK's
``_build_summary_message``) with ``loads`` (lenient, the default) and
``loads(strict=True)``, and ``real legacy`` reads with ``loads`` every summary
in ``tests/fixtures/legacy_summaries.jsonl`` that a released openai-agents
0.6 to 0.19 wrote (first and second hop); the SDK's
``_extract_nested_history_transcript`` and ``json.loads`` read the same. A
call takes microseconds, so each is timed alone (see :func:`small_rows`).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import handoff_codec
from handoff_codec.format import LossWarning

from .session_rows import legacy_summary

WORDS = (
    "the agent asked for the invoice number and the user replied with the order "
    "details so billing can check the refund policy before the handoff"
).split()
HEAVY_MODULES = ("lark", "pydantic", "openai")
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "legacy_summaries.jsonl"
# Summary size -> how many distinct summaries each round reads, one call each.
SMALL = {1: 300, 5: 200, 20: 100}

Item = dict[str, Any]


def transcript(count: int, seed: int = 0) -> list[Item]:
    """A mixed transcript: one-line, multi-line and empty messages, tool calls and outputs."""
    rng = random.Random(seed)

    def text(words: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(words))

    def one_line() -> str:
        # "note: ..." and "(...)" as people write them: colons and parentheses.
        return (f"{text(rng.randint(2, 6))}: {text(rng.randint(8, 20))} "
                f"({text(rng.randint(1, 4))}) {text(rng.randint(3, 12))}")

    items: list[Item] = []
    while len(items) < count:
        kind = rng.random()
        role = rng.choice(("user", "assistant"))
        if kind < 0.70:
            items.append({"role": role, "content": one_line()})
        elif kind < 0.80:
            lines = [text(rng.randint(5, 12)) for _ in range(rng.randint(2, 5))]
            items.append({"role": "assistant", "content": "\n".join(lines)})
        elif kind < 0.85:
            items.append({"role": "assistant", "content": ""})
        else:
            call_id = f"call_{len(items)}"
            arguments = json.dumps({"query": text(rng.randint(3, 10))})
            items.append({"type": "function_call", "call_id": call_id,
                          "name": "lookup_order", "arguments": arguments})
            items.append({"type": "function_call_output", "call_id": call_id,
                          "output": text(rng.randint(10, 30))})
    return items[:count]


def legacy_summaries(count: int = 200, seed: int = 2) -> list[Item]:
    """Summary messages as openai-agents 0.6 to 0.19 wrote them, of 5 to 50 turns."""
    rng = random.Random(seed)
    return [legacy_summary(rng, rng.randint(5, 50)) for _ in range(count)]


def real_legacy_summaries() -> list[Item]:
    """Every summary message in the fixtures written by openai-agents 0.6 to 0.19."""
    messages = []
    for line in FIXTURES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if tuple(int(part) for part in row["version"].split(".")[:2]) >= (0, 20):
            continue
        messages.append(row["summary"])
        if "nested_first_summary" in row:
            messages.append(row["nested_first_summary"])
    return messages


def conversation(summary: Item, count: int = 40, seed: int = 1) -> list[Item]:
    """``count`` items of a conversation whose first item is ``summary``."""
    return [summary, *transcript(count - 1, seed)]


def paired(funcs: Sequence[Callable[[], object]], repeat: int) -> list[list[float]]:
    """Times of each function, ``repeat`` rounds, each round running all in a rotated order."""
    times: list[list[float]] = [[] for _ in funcs]
    for round_ in range(repeat):
        for offset in range(len(funcs)):
            which = (round_ + offset) % len(funcs)
            gc.collect()
            start = time.perf_counter()
            funcs[which]()
            times[which].append(time.perf_counter() - start)
    return times


def _median_ratio(top: list[float], bottom: list[float]) -> float:
    return statistics.median(t / b for t, b in zip(top, bottom, strict=True))


def import_check(repeat: int) -> dict[str, Any]:
    """Cold import of handoff_codec in fresh interpreters: median ms, heavy modules loaded."""
    probe = ("import sys, time, json; s = time.perf_counter(); import handoff_codec; "
             "t = time.perf_counter() - s; "
             f"print(json.dumps([t, [m for m in {HEAVY_MODULES!r} if m in sys.modules]]))")
    seconds, loaded = [], set()
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                             text=True).stdout
        took, heavy = json.loads(out)
        seconds.append(took)
        loaded.update(heavy)
    return {"import_ms": statistics.median(seconds) * 1e3, "heavy_modules_loaded": sorted(loaded)}


def run(count: int, repeat: int) -> dict[str, Any]:
    """All rows, as a dict (the ``--json`` output)."""
    from agents.handoffs.history import (
        _build_summary_message,
        _extract_nested_history_transcript,
        _flatten_nested_history_messages,
    )

    items = transcript(count)
    summary = _build_summary_message(items)  # type: ignore[arg-type]
    text: str = summary["content"]  # type: ignore[index]
    as_json = json.dumps(items)
    # Both readers read the same text to the same items.
    assert handoff_codec.loads(text) == handoff_codec.loads(text, strict=True) == items
    assert _extract_nested_history_transcript(summary) == items

    nested = conversation(_build_summary_message(transcript(2000)))  # type: ignore[arg-type]
    assert handoff_codec.flatten(nested) == _flatten_nested_history_messages(nested)  # type: ignore[arg-type]
    legacy = legacy_summaries()
    legacy_texts = [summary["content"] for summary in legacy]
    legacy_json = json.dumps([handoff_codec.loads(text) for text in legacy_texts])

    rows: list[tuple[str, Callable[[], object], Callable[[], object], Callable[[], object] | None]]
    rows = [
        ("encode", lambda: handoff_codec.dumps(items),
         lambda: _build_summary_message(items), lambda: json.dumps(items)),  # type: ignore[arg-type]
        ("decode (lenient)", lambda: handoff_codec.loads(text),
         lambda: _extract_nested_history_transcript(summary), lambda: json.loads(as_json)),
        ("decode (strict)", lambda: handoff_codec.loads(text, strict=True),
         lambda: _extract_nested_history_transcript(summary), lambda: json.loads(as_json)),
        ("decode (legacy)", lambda: [handoff_codec.decode(text) for text in legacy_texts],
         lambda: [_extract_nested_history_transcript(summary) for summary in legacy],  # type: ignore[arg-type]
         lambda: json.loads(legacy_json)),
        ("flatten 40 items", lambda: handoff_codec.flatten(nested),
         lambda: _flatten_nested_history_messages(nested), None),  # type: ignore[arg-type]
    ]
    result: dict[str, Any] = {
        "items": count, "repeat": repeat, "summary_mb": len(text.encode()) / 1e6,
        "python": sys.version.split()[0], "rows": {},
    }
    for name, ours, theirs, floor in rows:
        funcs = [ours, theirs] if floor is None else [ours, theirs, floor]
        for func in funcs:
            func()  # warm caches (parsers, compiled patterns)
        times = paired(funcs, repeat)
        row = {
            "ours_ms": statistics.median(times[0]) * 1e3,
            "sdk_ms": statistics.median(times[1]) * 1e3,
            "speed_up": _median_ratio(times[1], times[0]),
        }
        if floor is not None:
            row["json_ms"] = statistics.median(times[2]) * 1e3
            row["x_json"] = _median_ratio(times[0], times[2])
        result["rows"][name] = row
    result["small"] = small_rows(repeat)
    result.update(import_check(repeat))
    return result


def _per_call(ours: Callable[[int], object], sdk: Callable[[int], object],
              floor: Callable[[int], object], calls: int, repeat: int) -> dict[str, Any]:
    """Each reader on summaries ``0 .. calls-1``: every call timed alone, the readers in turns.

    A summary's time is its fastest call of the ``repeat`` rounds (which
    leaves out the calls a preemption hit); a reader's time is the mean over
    the summaries, slow ones included, and the ratio is of those means.
    """
    readers = (ours, sdk, floor)
    clock = time.perf_counter
    for reader in readers:
        for i in range(calls):
            reader(i)  # warm caches
    best = [[float("inf")] * calls for _ in readers]
    for round_ in range(repeat):
        gc.collect()
        for i in range(calls):
            for offset in range(3):
                which = (round_ + i + offset) % 3
                start = clock()
                readers[which](i)
                took = clock() - start
                if took < best[which][i]:
                    best[which][i] = took
    mean = [sum(times) / calls for times in best]
    return {"ours_us": mean[0] * 1e6, "sdk_us": mean[1] * 1e6, "json_us": mean[2] * 1e6,
            "speed_up": mean[1] / mean[0], "x_json": mean[0] / mean[2], "summaries": calls}


def small_rows(repeat: int) -> dict[str, dict[str, Any]]:
    """The per-call rows: summaries of 1, 5 and 20 items, and the fixtures' real legacy ones.

    A call takes microseconds, less than a time slice of a loaded machine, so
    each call is timed alone, the three readers in turns on each summary (the
    order rotating), and each summary counts with its fastest call of the
    rounds (see :func:`_per_call`).
    """
    from agents.handoffs.history import (
        _build_summary_message,
        _extract_nested_history_transcript,
    )

    loads = handoff_codec.loads
    rows: dict[str, dict[str, Any]] = {}
    for size, calls in SMALL.items():
        # Transcripts whose SDK summary every reader reads as it was written (a system turn
        # after a user's, or a tool call no output answers, is read as text: not timed).
        transcripts = []
        for seed in range(calls * 4):
            items = transcript(size, seed)
            text = _build_summary_message(items)["content"]  # type: ignore[arg-type,index]
            if handoff_codec.decode(text).lossless and len(transcripts) < calls:
                transcripts.append(items)
        summaries = [_build_summary_message(items) for items in transcripts]  # type: ignore[arg-type]
        texts: list[str] = [summary["content"] for summary in summaries]  # type: ignore[index,misc]
        as_json = [json.dumps(items) for items in transcripts]
        for text, items in zip(texts, transcripts, strict=True):
            assert loads(text) == loads(text, strict=True) == items
        label = f"{size} item{'s' if size > 1 else ''}"
        # As a caller writes them: loads(text), the default, and loads(text, strict=True).
        calls_of: dict[str, Callable[[int], object]] = {
            "lenient": lambda i, t=texts: loads(t[i]),  # type: ignore[misc]
            "strict": lambda i, t=texts: loads(t[i], strict=True),  # type: ignore[misc]
        }
        for mode, call in calls_of.items():
            rows[f"{label} ({mode})"] = _per_call(
                call,
                lambda i, m=summaries: _extract_nested_history_transcript(m[i]),  # type: ignore[misc]
                lambda i, j=as_json: json.loads(j[i]),  # type: ignore[misc]
                calls, repeat)
    legacy = real_legacy_summaries()
    texts = [summary["content"] for summary in legacy]
    as_json = [json.dumps(loads(text)) for text in texts]
    rows[f"real legacy ({len(texts)})"] = _per_call(
        lambda i, t=texts: loads(t[i]),  # type: ignore[misc]
        lambda i, m=legacy: _extract_nested_history_transcript(m[i]),  # type: ignore[misc]
        lambda i, j=as_json: json.loads(j[i]),  # type: ignore[misc]
        len(texts), repeat)
    return rows


def main(argv: list[str] | None = None) -> None:
    # Legacy summaries that lose a line warn on loads; the time is what is measured here.
    warnings.filterwarnings("ignore", category=LossWarning)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    result = run(args.items, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"transcript: {result['items']} items, summary {result['summary_mb']:.2f} MB, "
          f"median of {result['repeat']} paired rounds, Python {result['python']}")
    print(f"{'operation':<22}{'handoff_codec':>14}{'openai-agents':>15}{'speed-up':>10}"
          f"{'json':>11}{'x json':>8}")
    for name, row in result["rows"].items():
        floor = (f"{row['json_ms']:>8.1f} ms{row['x_json']:>7.2f}x" if "json_ms" in row else "")
        print(f"{name:<22}{row['ours_ms']:>11.1f} ms{row['sdk_ms']:>12.1f} ms"
              f"{row['speed_up']:>9.2f}x{floor}")
    print(f"per call: small summaries and real legacy ones (mean over the summaries of "
          f"each one's fastest of {result['repeat']} rounds):")
    print(f"{'summary':<22}{'handoff_codec':>14}{'openai-agents':>15}{'speed-up':>10}"
          f"{'json':>11}{'x json':>8}")
    for name, row in result["small"].items():
        print(f"{name:<22}{row['ours_us']:>11.2f} us{row['sdk_us']:>12.2f} us"
              f"{row['speed_up']:>9.2f}x{row['json_us']:>8.2f} us{row['x_json']:>7.2f}x")
    heavy = ", ".join(result["heavy_modules_loaded"]) or "none of " + ", ".join(HEAVY_MODULES)
    print(f"import handoff_codec: {result['import_ms']:.0f} ms (median), loads {heavy}")


if __name__ == "__main__":
    main()
