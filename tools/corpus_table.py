"""The corpus table: how every real legacy summary reads, per openai-agents release.

Every row of tests/fixtures/legacy_summaries.jsonl (what each release wrote, one
handoff and two) is read by ``decode`` and given to ``migrate_item`` as the
assistant message it is. Per release:

* exit 0: ``decoded.lossless`` (``handoff-codec decode`` exits 0), split into no
  recovery at all and recoveries none of which is lost;
* ambiguous: an ``ambiguous`` recovery (exit 3); lost: a lost recovery, none
  ambiguous (exit 3);
* exact: the items are the transcript less what the writer provably lost (a
  raw 0.6 to 0.17.0 record holds ``raw_holds`` of its item; a plain record
  keeps role, name and content; a bare role or 0.20's `N. role: ` cannot tell
  None from ""). For a second-hop summary: one item for each record the writer
  numbered, and the turns given after the first hop as the writer held them (up
  to 0.18.2 its nest flattened a message holding both markers: those and the
  turns before them are not compared);
* migrate: ``migrate_item``'s statuses (``untouched`` is what it would leave).

Run from the repository root::

    python tools/corpus_table.py [--engine fast|lark] [--kind single|nested] [FILE ...]

FILE: other rows of the same shape (a release held out of the fixtures, say),
read beside tests/fixtures/legacy_summaries.jsonl.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import handoff_codec
from handoff_codec import RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_START
from handoff_codec.migrate import MigrationStatus, migrate_item
from tests.support.legacy_fixtures import ROWS, VERSIONS, records_written, release, writer_dropped
from tests.support.raw_writer import raw_holds

COLUMNS = ["summaries", "exit 0", "no recovery", "non-lost recoveries only", "ambiguous",
           "lost (not ambiguous)", "exact", "migrated", "already current", "untouched"]


def held(original: dict[str, Any], ours: dict[str, Any], version: str) -> bool:
    """Whether ``ours`` is ``original`` less what the release's writer provably lost."""
    if ours == original or writer_dropped(original, ours, version) is not None:
        return True
    if release(version) < (0, 17, 1) and ours == raw_holds(original):
        return True
    return (release(version) < (0, 20) and original.get("content") in (None, "")
            and ours.get("content") == ""
            and {k: v for k, v in ours.items() if k != "content"}
            == {k: original[k] for k in ("role", "name") if original.get(k)})


def flattened_by_the_writer(item: dict[str, Any], version: str) -> bool:
    """Whether a release's nest_handoff_history flattened ``item`` as a summary before
    writing (up to 0.18.2, any message whose content holds both markers)."""
    content = item.get("content")
    return (release(version) < (0, 18, 3) and isinstance(content, str)
            and DEFAULT_START in content and DEFAULT_END in content)


def exact(row: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    """Whether ``items`` are what the row's summary holds of its transcript."""
    transcript, version = row["transcript"], row["version"]
    if row["kind"] == "nested":
        written_after = transcript[row["nested_split"]:]
        flattened = [index for index, item in enumerate(written_after)
                     if flattened_by_the_writer(item, version)]
        if flattened:  # what the writer made of it is no longer that item: not compared
            written_after = written_after[flattened[-1] + 1:]
        if len(items) != records_written(row["summary"]["content"]) or (
                len(items) < len(written_after)):
            return False
        items, transcript = items[len(items) - len(written_after):], written_after
    return len(items) == len(transcript) and all(
        held(original, ours, version) for original, ours in zip(transcript, items, strict=True))


def tally(rows: list[dict[str, Any]], engine: str) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for row in rows:
        count = counts.setdefault(row["version"], Counter())
        text = row["summary"]["content"]
        decoded = handoff_codec.decode(text, engine=engine)  # type: ignore[arg-type]
        kinds = {recovery.kind for recovery in decoded.recoveries}
        count["summaries"] += 1
        if decoded.lossless:
            count["exit 0"] += 1
            count["non-lost recoveries only" if kinds else "no recovery"] += 1
        elif RecoveryKind.AMBIGUOUS in kinds:
            count["ambiguous"] += 1
        else:
            count["lost (not ambiguous)"] += 1
        count["exact"] += exact(row, decoded.items)
        status = migrate_item(dict(row["summary"])).status
        count[{MigrationStatus.MIGRATED: "migrated",
               MigrationStatus.ALREADY_CURRENT: "already current"}.get(status,
                                                                       "untouched")] += 1
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["fast", "lark"], default="fast")
    parser.add_argument("--kind", choices=["single", "nested"])
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    options = parser.parse_args(argv)
    extra = [json.loads(line) for path in options.files
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in [*ROWS, *extra] if options.kind in (None, row["kind"])]
    versions = list(dict.fromkeys([*VERSIONS, *(row["version"] for row in extra)]))
    counts = tally(rows, options.engine)
    total: Counter[str] = sum(counts.values(), Counter())
    print(f"{len(rows)} summaries of {len(versions)} releases "
          f"({options.kind or 'one handoff and two'}), engine {options.engine}\n")
    print(f"| release | {' | '.join(COLUMNS)} |")
    print(f"|---|{'---|' * len(COLUMNS)}")
    for version, count in [*((v, counts[v]) for v in versions if v in counts),
                           ("all", total)]:
        print(f"| {version} | {' | '.join(str(count[column]) for column in COLUMNS)} |")


if __name__ == "__main__":
    main()
