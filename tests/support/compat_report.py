"""Count, over generated transcripts, who reads whose summaries back exactly.

    python -m tests.support.compat_report [--examples 2000]

For each transcript L (without the keys the SDK deletes) it writes the SDK's
summary and ours, and reads each back with both readers. The property tests
assert the rows that must be all-or-nothing; this prints the counts.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings

import handoff_codec
from tests.support.sdk import sdk_read, sdk_summarize
from tests.support.strategies import transcripts, without_sdk_stripped_keys


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(transcripts.filter(without_sdk_stripped_keys))
    def tally(items: list[dict[str, Any]]) -> None:
        counts["transcripts"] += 1
        theirs = sdk_summarize(items)
        sdk_ok = sdk_read(theirs) == items
        ours_ok = handoff_codec.flatten([theirs]) == items
        counts["SDK summary, SDK reader exact"] += sdk_ok
        counts["SDK summary, handoff_codec exact"] += ours_ok
        counts["SDK summary, handoff_codec exact, SDK not"] += ours_ok and not sdk_ok
        counts["SDK summary, SDK exact, handoff_codec not"] += sdk_ok and not ours_ok
        mine = handoff_codec.format.summarize(items)
        counts["our summary, SDK reader exact"] += sdk_read(mine) == items
        counts["our summary, handoff_codec exact"] += handoff_codec.loads(mine["content"]) == items

    tally()
    width = max(map(len, counts))
    for name, value in counts.items():
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
