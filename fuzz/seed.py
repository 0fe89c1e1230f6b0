"""Write the seed corpus: each fixture summary's content, as a reader input.

    python fuzz/seed.py OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "legacy_summaries.jsonl"


def write_seeds(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for number, line in enumerate(FIXTURES.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        summary = json.loads(line)["summary"]
        content = summary["content"] if isinstance(summary, dict) else summary
        if not isinstance(content, str):
            continue
        # byte 0 even: the readers; byte 1 not 1: no extra envelope; then the text
        data = b"\x00\x00" + content.encode("utf-8", "surrogatepass")
        (out / f"fixture-{number:04d}").write_bytes(data)
        count += 1
    return count


if __name__ == "__main__":
    print(write_seeds(Path(sys.argv[1])), "seeds written")
