"""The first call in a fresh process: import time, and each first call after it.

    python -m benchmarks.first_call [--samples 15] [--json]
    python -m benchmarks.first_call --importtime [CALL] [--top 15]

Real handoffs are small and often one per process, so what a caller pays
first is the import and the first call, before any parser or model is built.
For each call below, every sample is a fresh interpreter that imports
handoff_codec and makes that one call; it reports the import time, the call's
time and the heavy modules loaded by then. Printed: the median of the
samples, per call, and ``import + call``, which is over a bare interpreter
(its own start-up is not counted, as it is not ours).

The calls: ``loads`` of a 5-item summary in the current format (the default,
lenient read), the same with ``strict=True``, ``decode`` of a summary written
by openai-agents 0.17.1-0.19 (legacy, with recoveries), and ``flatten`` of a
conversation holding one summary.

``--importtime CALL`` runs one such process under ``python -X importtime``
and prints the modules that took longest (cumulative, including what they
import), then whether Lark, pydantic or openai were imported at all.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HEAVY_MODULES = ("lark", "pydantic", "pydantic_core", "openai", "agents")

# Each call, as the statement a fresh process runs after `import handoff_codec`,
# with `text`, `legacy` and `conversation` given to it.
CALLS: dict[str, str] = {
    "loads": "handoff_codec.loads(text)",
    "loads strict": "handoff_codec.loads(text, strict=True)",
    "decode (legacy)": "handoff_codec.decode(legacy)",
    "flatten": "handoff_codec.flatten(conversation)",
}

_PROBE = """
import json, sys, time
data = json.loads(sys.stdin.read())
text, legacy, conversation = data["text"], data["legacy"], data["conversation"]
start = time.perf_counter()
import handoff_codec
imported = time.perf_counter()
{call}
done = time.perf_counter()
print(json.dumps({{"import": imported - start, "call": done - imported,
                   "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def inputs() -> dict[str, Any]:
    """The texts each call reads: the same in every sample."""
    from .session_rows import legacy_summary

    items = [{"role": "user", "content": "Where is my refund for order 1234?"},
             {"role": "assistant", "content": "Let me check: (billing) one moment."},
             {"type": "function_call", "call_id": "call_1", "name": "lookup_order",
              "arguments": '{"order": 1234}'},
             {"type": "function_call_output", "call_id": "call_1", "output": "refund sent"},
             {"role": "assistant", "content": "Your refund was sent yesterday."}]
    # Built in a child, so that this process can later measure cold imports honestly.
    out = subprocess.run(
        [sys.executable, "-c", "import handoff_codec, json, sys; "
         "print(handoff_codec.dumps(json.loads(sys.stdin.read())))"],
        input=json.dumps(items), capture_output=True, text=True, check=True).stdout
    text = out.removesuffix("\n")
    rng = random.Random(3)
    legacy = legacy_summary(rng, 8)["content"]
    while "\n1. " not in legacy or ": {" not in legacy:  # a 0.17.1-0.19 summary
        legacy = legacy_summary(rng, 8)["content"]
    conversation = [{"role": "assistant", "content": text},
                    {"role": "user", "content": "thanks"}]
    return {"text": text, "legacy": legacy, "conversation": conversation}


def _probe(call: str) -> str:
    return _PROBE.format(call=CALLS[call], heavy=HEAVY_MODULES)


def sample(call: str, data: str) -> dict[str, Any]:
    """One fresh process: import seconds, call seconds, heavy modules loaded."""
    out = subprocess.run([sys.executable, "-c", _probe(call)], input=data, capture_output=True,
                         text=True, check=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def run(samples: int) -> dict[str, Any]:
    """Every call, ``samples`` fresh processes each, taken in turns."""
    data = json.dumps(inputs())
    raw: dict[str, list[dict[str, Any]]] = {call: [] for call in CALLS}
    for _ in range(samples):
        for call in CALLS:  # in turns, so that a slow moment hits every call
            raw[call].append(sample(call, data))
    rows = {}
    for call, runs in raw.items():
        rows[call] = {
            "import_ms": statistics.median(r["import"] for r in runs) * 1e3,
            "call_ms": statistics.median(r["call"] for r in runs) * 1e3,
            "total_ms": statistics.median(r["import"] + r["call"] for r in runs) * 1e3,
            "heavy_modules": sorted({m for r in runs for m in r["heavy"]}),
        }
    return {"samples": samples, "python": sys.version.split()[0], "rows": rows}


def importtime(call: str, top: int) -> list[tuple[int, int, str]]:
    """``(cumulative us, self us, module)`` of one fresh process under ``-X importtime``."""
    data = json.dumps(inputs())
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", _probe(call)], input=data,
                         capture_output=True, text=True, check=True).stderr
    entries = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cumulative, name = line.removeprefix("import time:").split("|", 2)
        entries.append((int(cumulative), int(self_us), name.rstrip()))
    entries.sort(reverse=True)
    return entries if top <= 0 else entries[:top]


def _bytecode_cached() -> bool:
    """Whether the package's modules have cached bytecode (``__pycache__``) to import."""
    spec = importlib.util.find_spec("handoff_codec")
    origin = spec.origin if spec is not None else None
    return origin is None or Path(importlib.util.cache_from_source(origin)).exists()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--importtime", nargs="?", const="loads", choices=list(CALLS),
                        metavar="CALL", help=f"one of {', '.join(CALLS)} (default: loads)")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)

    if args.importtime:
        entries = importtime(args.importtime, 0)
        print(f"python -X importtime, first {args.importtime!r}: modules by cumulative time")
        print(f"{'cumulative':>12}{'self':>10}  module")
        for cumulative, self_us, name in entries[:args.top]:
            print(f"{cumulative / 1e3:>9.1f} ms{self_us / 1e3:>7.1f} ms  {name}")
        names = {name.strip() for _, _, name in entries}
        for heavy in HEAVY_MODULES:
            print(f"{heavy}: {'IMPORTED' if heavy in names else 'not imported'}")
        return

    if not _bytecode_cached():
        print("note: no cached bytecode for handoff_codec (PYTHONDONTWRITEBYTECODE?), so every "
              "import compiles its source, which an installed package does not; "
              "`python -m compileall handoff_codec` first", file=sys.stderr)
    result = run(args.samples)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"first call in a fresh process: median of {result['samples']} processes per call, "
          f"Python {result['python']}")
    print(f"{'call':<18}{'import':>10}{'call':>10}{'import+call':>13}  heavy modules loaded")
    for call, row in result["rows"].items():
        heavy = ", ".join(row["heavy_modules"]) or "none"
        print(f"{call:<18}{row['import_ms']:>7.1f} ms{row['call_ms']:>7.1f} ms"
              f"{row['total_ms']:>10.1f} ms  {heavy}")


if __name__ == "__main__":
    main()
