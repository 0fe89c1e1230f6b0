"""A bounded fuzz run for CI: seed from the fixtures, fuzz for N seconds.

    python fuzz/run.py --seconds 60 [--workdir DIR] [-- extra libFuzzer flags]

Exits 0 when the run ends without a crash, hang or broken invariant, and
non-zero otherwise (libFuzzer's exit code); the failing input is written to
the work directory as ``crash-*`` / ``timeout-*`` and printed by libFuzzer.
Each input may take at most ``--timeout`` seconds, so a super-linear reader
on a long hostile input fails the run too.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from seed import write_seeds  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--timeout", type=int, default=10, help="seconds per input")
    parser.add_argument("--max-len", type=int, default=16384)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the corpus and artifacts here (default: a temp dir)")
    parser.add_argument("extra", nargs="*", help="more libFuzzer flags (after --)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as temp:
        work = args.workdir or Path(temp)
        corpus, seeds = work / "corpus", work / "seeds"
        corpus.mkdir(parents=True, exist_ok=True)
        write_seeds(seeds)
        command = [
            sys.executable, str(HERE / "harness.py"),
            f"-max_total_time={args.seconds}", f"-timeout={args.timeout}",
            f"-max_len={args.max_len}", "-rss_limit_mb=4096", "-print_final_stats=1",
            f"-artifact_prefix={work}/", *args.extra, str(corpus), str(seeds),
        ]
        result = subprocess.run(command, check=False)
        if result.returncode:
            print(f"fuzz/run.py: FAILED (exit {result.returncode}); "
                  f"the input is in {work}", file=sys.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
