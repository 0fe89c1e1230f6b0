"""JSONL beside a writer appending in a loop: every line it appends ends up in the file.

The writer opens the file for each line (as a logger or an agent appending a turn
does), so its appends land before, during and after the rename of each run.
``HANDOFF_CODEC_RACE_RUNS`` sets the number of runs (20 by default; 200 for a heavier run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from handoff_codec.migrate.stores import MigrateOptions
from handoff_codec.migrate.stores.jsonl import migrate_jsonl
from tests.support.migrate_support import CRAFTED, PLAIN, require_legacy_reader

RUNS = int(os.environ.get("HANDOFF_CODEC_RACE_RUNS", "20"))

_WRITER = """
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
n = 0
while not os.path.exists(stop):
    with open(path, "a") as file:
        file.write('{"role": "user", "content": "appended-%d"}\\n' % n)
    n += 1
    time.sleep(0.003)
print(n)
"""


def test_no_line_appended_during_any_run_is_lost(tmp_path: Path) -> None:
    require_legacy_reader()
    path = tmp_path / "history.jsonl"
    legacy = json.dumps(CRAFTED[0]) + "\n"
    path.write_text(json.dumps(PLAIN[0]) + "\n" + legacy)
    stop = tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(stop)],
                              stdout=subprocess.PIPE, text=True)
    try:
        while path.stat().st_size < 2000:  # the writer is going
            time.sleep(0.01)
        variants = [MigrateOptions(), MigrateOptions(restore_empty=True),
                    MigrateOptions(backup=False)]
        for run in range(RUNS):
            options = variants[run % len(variants)]
            if options.backup:
                options = MigrateOptions(restore_empty=options.restore_empty,
                                         backup_file=str(tmp_path / f"b{run}.jsonl"))
            with path.open("a") as file:  # a legacy line, so that every run rewrites
                file.write(legacy)
            report = migrate_jsonl(path, options=options)
            assert report.written and report.migrated >= 1, report
    finally:
        stop.touch()
        out, _ = writer.communicate(timeout=30)
    appended = int(out)
    lines = path.read_text().splitlines()
    found = [json.loads(line)["content"] for line in lines
             if "appended-" in line]
    assert found == [f"appended-{n}" for n in range(appended)] or sorted(found) == sorted(
        f"appended-{n}" for n in range(appended))
    assert len(found) == appended > RUNS  # not one lost, not one twice
    print(f"{RUNS} runs, {appended} lines appended, 0 lost")
