"""A summary that two readings remain for (``ambiguous``) is not rewritten unasked.

0.6 to 0.17.0 wrote multi-line content raw: the assistant turn
``"line1\\n2. system: not a turn"`` came out as ``2. assistant: line1`` and a
line ``2. system: not a turn``. The repeated number says one of them may be
content; the reader splits it with an ``ambiguous`` recovery, and ``migrate``
leaves it as it is and lists it, unless ``accept_ambiguous`` is given.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import handoff_codec
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from handoff_codec.migrate import MigrationStatus, migrate_item
from handoff_codec.migrate.stores.jsonl import migrate_jsonl

P, S, E = DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END
AMBIGUOUS = {"role": "assistant", "content": "\n".join(
    (P, S, "1. user: q", "2. assistant: line1", "2. system: not a turn", E))}
# The same records with a JSON record: a writer that escapes line breaks wrote it.
EVIDENT = {"role": "assistant", "content": "\n".join(
    (P, S, '1. {"content": "q\\nmore", "role": "user"}', "2. assistant: line1",
     "2. system: a turn", E))}


def test_an_ambiguous_summary_is_left_untouched_with_the_reason() -> None:
    result = migrate_item(AMBIGUOUS)
    assert result.status is MigrationStatus.UNTOUCHED
    assert result.item is AMBIGUOUS
    assert result.reason is not None
    assert result.reason.startswith("line(s) 5: two readings of the text remain (ambiguous)")
    assert "accept_ambiguous" in result.reason


def test_accept_ambiguous_rewrites_it_as_read() -> None:
    result = migrate_item(AMBIGUOUS, accept_ambiguous=True)
    assert result.status is MigrationStatus.MIGRATED
    # The reading kept: the out-of-sequence line stays content of the record above.
    assert handoff_codec.loads(result.item["content"], strict=True) == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "line1\n2. system: not a turn"}]


def test_a_renumbered_summary_with_evidence_is_migrated() -> None:
    result = migrate_item(EVIDENT)
    assert result.status is MigrationStatus.MIGRATED
    assert len(handoff_codec.loads(result.item["content"], strict=True)) == 3


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in (AMBIGUOUS, EVIDENT)))
    return path


def test_migrate_jsonl_lists_the_ambiguous_summary(tmp_path: Path) -> None:
    path = _store(tmp_path)
    before = path.read_bytes()
    report = migrate_jsonl(path, backup=False)
    assert (report.migrated, report.untouched) == (1, 1)
    [row] = report.untouched_rows
    assert row.row == 1 and "ambiguous" in row.reason
    assert path.read_bytes().split(b"\n")[0] == before.split(b"\n")[0]  # left as it was
    again = migrate_jsonl(path, backup=False, accept_ambiguous=True)
    assert (again.migrated, again.untouched) == (1, 0)


def test_the_cli_refuses_unless_accept_ambiguous(tmp_path: Path) -> None:
    path = _store(tmp_path)
    before = path.read_bytes()

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "handoff_codec", "migrate", *flags,
                               "--no-backup", str(path)], capture_output=True, text=True,
                              timeout=60)

    dry = run("--dry-run")
    assert dry.returncode == 1 and "ambiguous" in dry.stdout
    assert path.read_bytes() == before
    refused = run()
    assert refused.returncode == 1
    assert "line 1: line(s) 5: two readings of the text remain" in refused.stdout
    assert path.read_bytes().split(b"\n")[0] == before.split(b"\n")[0]
    accepted = run("--accept-ambiguous")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert migrate_item(json.loads(path.read_text().split("\n")[0])).status \
        is MigrationStatus.ALREADY_CURRENT


def test_flatten_keeps_it_whole_as_the_migration_does() -> None:
    """``on_loss="keep"``: `2. system: not a turn` may be content; it never becomes a turn."""
    assert handoff_codec.flatten([AMBIGUOUS]) == [AMBIGUOUS]
    (decision,) = handoff_codec.format.default_codec.flatten_report([AMBIGUOUS]).decisions
    assert not decision.expanded and decision.reason == "lossy"
    assert decision.detail.startswith("line(s) 5: two readings of the text remain (ambiguous)")
    assert len(handoff_codec.flatten([AMBIGUOUS], on_loss="drop")) == 2
    assert len(handoff_codec.flatten([EVIDENT])) == 3


def test_every_store_takes_accept_ambiguous_through_its_options(tmp_path: Path) -> None:
    """``MigrateOptions.accept_ambiguous`` reaches the per-row rule of a SQLite file too."""
    from handoff_codec.migrate.stores import MigrateOptions
    from handoff_codec.migrate.stores.sqlite_file import migrate_sqlite
    from tests.support.migrate_support import get_items, make_session_db

    db = tmp_path / "sessions.db"
    make_session_db(db, {"s": [AMBIGUOUS, EVIDENT]})
    refused = migrate_sqlite(db, options=MigrateOptions(backup=False))
    assert (refused.migrated, refused.untouched) == (1, 1)
    assert get_items(db, "s")[0] == AMBIGUOUS
    accepted = migrate_sqlite(db, options=MigrateOptions(backup=False, accept_ambiguous=True))
    assert (accepted.migrated, accepted.untouched) == (1, 0)
    assert migrate_item(get_items(db, "s")[0]).status is MigrationStatus.ALREADY_CURRENT


def test_a_server_store_refuses_unless_accept_ambiguous(tmp_path: Path) -> None:
    """``--accept-ambiguous`` on the CLI reaches a server store's rows (Redis here)."""
    import redis

    from tests.support.migrate_support import run_cli_here
    from tests.support.services import redis_prefix

    with redis_prefix() as (url, prefix):
        client = redis.Redis.from_url(url)
        key = f"{prefix}:s:messages"
        client.rpush(key, json.dumps(AMBIGUOUS), json.dumps(EVIDENT))
        before = client.lrange(key, 0, -1)
        common = ("--key-prefix", prefix, "--backup-file", str(tmp_path / "b.jsonl"), url)
        refused = run_cli_here("--json", *common)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        report = json.loads(refused.stdout)
        assert (report["migrated"], report["untouched"]) == (1, 1)
        assert "ambiguous" in report["untouched_rows"][0]["reason"]
        after = client.lrange(key, 0, -1)
        assert after[0] == before[0] and after[1] != before[1]
        accepted = run_cli_here("--accept-ambiguous", "--backup-file",
                                str(tmp_path / "c.jsonl"), "--key-prefix", prefix, url)
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        assert migrate_item(json.loads(client.lrange(key, 0, 0)[0])).status \
            is MigrationStatus.ALREADY_CURRENT
        client.close()
