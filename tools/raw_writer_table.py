"""How LLM-style conversations written by the raw openai-agents 0.6 to 0.17.0 writer read back.

The conversations are tests/support/llm_conversations.py's (seeds 0 to N - 1,
nothing adversarial); each is written by the raw writer (tests/support/raw_writer.py)
and read by ``decode`` on both engines; ``migrate`` (which reads with the default
engine) is asked whether it would rewrite it. Run from the repository root::

    python tools/raw_writer_table.py [--conversations N]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import handoff_codec
from handoff_codec.migrate import MigrationStatus, migrate_item
from tests.format.read.summaries import ENGINES
from tests.support.llm_conversations import conversations
from tests.support.raw_writer import raw_holds, raw_summary

ROWS = {
    "exact": "decoded as written, exit 0",
    "offered": "flagged (exit 3), the written items offered",
    "other": "exit 0, other items",
    "lost": "flagged (exit 3), the written items not offered",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000, metavar="N")
    n = parser.parse_args(argv).conversations
    counts = {engine: Counter[str]() for engine in ENGINES}
    migrated: Counter[str] = Counter()
    for items in conversations(n):
        text = raw_summary(items)
        written = [raw_holds(item) for item in items]
        for engine in ENGINES:
            decoded = handoff_codec.decode(text, engine=engine)
            if decoded.lossless:
                counts[engine]["exact" if decoded.items == written else "other"] += 1
                continue
            readings = [decoded.items, *(candidate.items for candidate in decoded.candidates)]
            counts[engine]["offered" if written in readings else "lost"] += 1
        status = migrate_item({"role": "assistant", "content": text}).status
        migrated[status.value] += 1
    print(f"{n} conversations written by the raw 0.6 to 0.17.0 writer\n")
    print(f"| outcome | {' | '.join(ENGINES)} |")
    print(f"|---|{'---|' * len(ENGINES)}")
    for key, label in ROWS.items():
        cells = " | ".join(f"{counts[e][key]} ({100 * counts[e][key] / n:.1f}%)"
                           for e in ENGINES)
        print(f"| {label} | {cells} |")
    left = n - migrated[MigrationStatus.MIGRATED.value]
    print(f"\n`migrate` would leave {left} of {n} ({100 * left / n:.1f}%) as they are "
          f"({', '.join(f'{status}: {count}' for status, count in sorted(migrated.items()))}).")


if __name__ == "__main__":
    main()
