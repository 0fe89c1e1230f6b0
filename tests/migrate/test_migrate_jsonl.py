"""``handoff-codec migrate`` on JSON Lines files."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec.migrate.stores import StoreError
from handoff_codec.migrate.stores.jsonl import migrate_jsonl
from tests.support.migrate_support import (
    CRAFTED,
    NONCANONICAL_CURRENT,
    PLAIN,
    UNREADABLE,
    cli_command,
    cli_env,
    fixture_summaries,
    one_line_error,
    require_legacy_reader,
    run_cli,
    sha256,
)

Item = dict[str, Any]


def _line(value: Any, **options: Any) -> bytes:
    return json.dumps(value, **options).encode("utf-8")


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, list[bytes]]:
    """A JSONL file with every kind of line; returns it and its lines (with endings)."""
    require_legacy_reader()
    lines = [
        _line(PLAIN[0]) + b"\n",
        _line(CRAFTED[0]) + b"\n",
        b"\n",  # blank
        _line(PLAIN[2], ensure_ascii=False) + b"\r\n",  # non-ASCII, CRLF
        _line(CRAFTED[2])[:-40] + b"\n",  # a torn summary line: not JSON
        _line([PLAIN[1], CRAFTED[1], PLAIN[3]], ensure_ascii=False) + b"\n",  # a list line
        _line(UNREADABLE) + b"\n",
        _line(CRAFTED[3], separators=(",", ":")) + b"\r\n",  # compact, CRLF
        b'{"role":  "user",   "content": "odd spacing"}\n',
        _line(handoff_codec.format.summarize([{"role": "user", "content": "current"}])) + b"\n",
        _line(NONCANONICAL_CURRENT),  # the last line has no line ending
    ]
    path = tmp_path / "history.jsonl"
    path.write_bytes(b"".join(lines))
    return path, lines


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_dry_run_writes_nothing(store: tuple[Path, list[bytes]]) -> None:
    path, _ = store
    before = (sha256(path), path.stat().st_mtime_ns)
    result = run_cli(str(path), "--dry-run", "--json", check_code=1)
    report = json.loads(result.stdout)
    assert report["store"] == "jsonl" and report["would_migrate"] == 4 and not report["written"]
    assert (sha256(path), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["history.jsonl"]


def test_migration_rewrites_only_the_summary_lines(store: tuple[Path, list[bytes]]) -> None:
    path, lines = store
    result = run_cli(str(path), "--json", check_code=1)
    report = json.loads(result.stdout)
    assert report["rows_scanned"] == 10  # the blank line is not a row
    # Only lines that may hold a summary are decoded: the list line holds three items.
    assert report["rows_decoded"] == 6 and report["items_scanned"] == 8
    assert report["summaries_found"] == 6
    assert (report["migrated"], report["already_current"], report["untouched"]) == (4, 1, 2)
    assert report["invalid_rows"] == 1
    assert {(r["row"], r["index"]) for r in report["untouched_rows"]} == {(5, None), (7, None)}

    after = _lines(path)
    assert len(after) == len(lines)
    changed = {1, 5, 7, 10}  # 0-based: CRAFTED[0], the list line, CRAFTED[3], NONCANONICAL
    for index, (old, new) in enumerate(zip(lines, after, strict=True)):
        if index not in changed:
            assert new == old, index
    # The line endings and JSON style of changed lines are kept.
    assert after[7].endswith(b"\r\n") and b'":"' in after[7]
    assert not after[10].endswith(b"\n")
    assert b"\xe2\x80\x94" in after[5]  # ensure_ascii=False kept: the em dash is raw
    for index in changed:
        value = json.loads(after[index])
        items = value if isinstance(value, list) else [value]
        for item in items:
            if handoff_codec.format.default_codec.is_summary(item):
                content = item["content"]
                decoded = handoff_codec.decode(content, strict=True)
                assert content == handoff_codec.dumps(decoded.items)
    list_line = json.loads(after[5])
    assert list_line[0] == PLAIN[1] and list_line[2] == PLAIN[3]
    assert list(json.loads(after[7])) == list(CRAFTED[3])  # key order kept

    (backup_name,) = report["backups"]
    backup = Path(backup_name)
    assert backup.read_bytes() == b"".join(lines)
    assert path.stat().st_mode & 0o777 == backup.stat().st_mode & 0o777


def test_second_run_reports_zero_migrated(store: tuple[Path, list[bytes]]) -> None:
    path, _ = store
    run_cli(str(path), "--no-backup")
    digest, mtime = sha256(path), path.stat().st_mtime_ns
    report = json.loads(run_cli(str(path), "--json", check_code=1).stdout)
    assert report["migrated"] == 0 and not report["written"] and report["backups"] == []
    assert (sha256(path), path.stat().st_mtime_ns) == (digest, mtime)
    assert sorted(p.name for p in path.parent.iterdir()) == ["history.jsonl"]


def test_clean_file_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps(NONCANONICAL_CURRENT) + "\n" + json.dumps(PLAIN[0]) + "\n")
    result = run_cli(str(path), check_code=0)
    assert re.search(r"^  migrated: +1 \(in the current format \(openai-agents 0.20 or later\): "
                     r"1\)$", result.stdout, re.M), result.stdout
    assert re.search(r"^  left untouched: +0$", result.stdout, re.M), result.stdout


def test_fixture_summaries_in_jsonl(tmp_path: Path) -> None:
    summaries = [s for _, _, s in fixture_summaries()]
    path = tmp_path / "fixtures.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in summaries))
    report = migrate_jsonl(path, backup=False)
    assert report.untouched == 0 and report.migrated > 0
    for old, line in zip(summaries, path.read_text().splitlines(), strict=True):
        new = json.loads(line)
        assert handoff_codec.loads(new["content"], strict=True) == \
            handoff_codec.loads(old["content"])


def test_symlink_target_is_rewritten_and_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text(json.dumps(NONCANONICAL_CURRENT) + "\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    migrate_jsonl(link, backup=False)
    assert link.is_symlink()
    migrated = handoff_codec.migrate.migrate_item(json.loads(real.read_text()))
    assert migrated.status == "already_current"


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "nope.jsonl"), check_code=2)
    assert "no such file" in one_line_error(result)
    with pytest.raises(StoreError):
        migrate_jsonl(tmp_path / "nope.jsonl")


def test_binary_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\x00\x01\x02")
    assert "neither" in one_line_error(run_cli(str(path), check_code=2))


def test_killed_migration_leaves_old_or_new_file(tmp_path: Path) -> None:
    require_legacy_reader()
    rng = random.Random(11)
    summaries = [*CRAFTED, NONCANONICAL_CURRENT]
    lines = [json.dumps(rng.choice(summaries) if n % 3 == 0 else rng.choice(PLAIN)) + "\n"
             for n in range(6000)]
    old = "".join(lines).encode()
    finished = tmp_path / "finished.jsonl"
    finished.write_bytes(old)
    started = time.monotonic()
    run_cli(str(finished), "--no-backup")
    duration = time.monotonic() - started
    new = finished.read_bytes()
    assert new != old

    outcomes: list[tuple[int | None, str, bool]] = []
    # At least 6 kills, and more (up to 20) until one has landed mid-write: on a
    # loaded machine the run's duration varies, and a kill can miss the write.
    for number in range(20):
        if number >= 6 and any(o[0] == -signal.SIGKILL and o[1] == "old" and o[2]
                               for o in outcomes):
            break
        path = tmp_path / f"kill{number}.jsonl"
        path.write_bytes(old)
        process = subprocess.Popen(cli_command(str(path)), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=cli_env())
        # Interpreter start-up takes part of the run; spread kills over all of it.
        time.sleep(rng.uniform(0.2, 1.1) * duration)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        data = path.read_bytes()
        assert data in (old, new), f"mixed file after a kill at run {number}"
        temps = [p for p in tmp_path.iterdir() if p.name.startswith(f".{path.name}.")]
        outcomes.append((process.returncode, "old" if data == old else "new", bool(temps)))
        for temp in temps:
            os.unlink(temp)
    # Some kills must land mid-write (a temporary file was left) for this to prove anything.
    assert any(o[0] == -signal.SIGKILL and o[1] == "old" and o[2] for o in outcomes), outcomes
