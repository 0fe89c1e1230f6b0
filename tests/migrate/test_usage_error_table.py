"""Every usage error of ``migrate`` exits 2 before anything is touched.

One table over the flags: conflicting actions, flags the action or the kind of
store does not take, numbers that are not finite or out of range, backups and
state directories that cannot be read or made. Each case runs on every kind of
store it applies to, and must exit 2 with one error line (argparse's usage line
before it, for a bad value) and one JSON document under ``--json``, leaving the
store (rows, checkpoint tables or keys, every file) as it was. A server store's
case runs a second time against a server that refuses connections (port 1): a
run that connected would exit 4 there, not 2.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.migrate_support import require_legacy_reader, run_cli_here
from tests.support.store_matrix import made_store, more_legacy, store_kinds

ALL = frozenset(store_kinds())
FILES = frozenset({"jsonl", "sqlite-file"})
SERVERS = ALL - FILES
SQL = frozenset({"sqlite-url", "postgresql", "mariadb"})
UNREACHABLE = {"postgresql": "postgresql://postgres@127.0.0.1:1/test",
               "mariadb": "mysql://root@127.0.0.1:1/test", "redis": "redis://127.0.0.1:1/0"}
USAGE_LINE = "usage: handoff-codec migrate STORE [options]"

# (kinds, argv, environment). Words: BACKUP the backup of the store's first run, NEW a path
# no file has, MISSING a file that does not exist, DIR a directory, RO a read-only directory,
# FILE a regular file that is no directory, TAKEN a file that exists.
CASES: list[tuple[frozenset[str], tuple[str, ...], dict[str, str]]] = [
    # conflicting actions, and flags an action does not take
    (ALL, ("--forget", "--restore", "BACKUP"), {}),
    *[(ALL, ("--restore", "BACKUP", *flag), {}) for flag in (
        ("--resume",), ("--shard", "0/2"), ("--shard-from-env", "--shards", "2"),
        ("--workers", "2"), ("--backup-file", "NEW"), ("--no-backup",), ("--restore-empty",),
        ("--legacy-only",), ("--accept-ambiguous",), ("--list",), ("--pause", "1"))],
    *[(ALL, ("--forget", *flag), {}) for flag in (
        ("--resume",), ("--workers", "2"), ("--backup-file", "NEW"), ("--shard", "1/2"),
        ("--restore-empty",))],
    (ALL, ("--restore", "MISSING"), {}),
    (ALL, ("--no-backup", "--backup-file", "NEW"), {}),  # no backup, and where to write it
    (ALL, ("--restore", "DIR"), {}),
    # flags this kind of store does not take
    *[(FILES, flag, {}) for flag in (
        ("--resume",), ("--shard", "0/2"), ("--shard-from-env", "--shards", "2"),
        ("--pause", "1"), ("--key-prefix", "p"), ("--lock-ttl", "30"))],
    *[(frozenset({"jsonl"}), flag, {}) for flag in (
        ("--workers", "2"), ("--messages-table", "m"), ("--sessions-table", "s"),
        ("--encryption-key-env", "SOME_KEY"))],
    *[(ALL - {"jsonl"}, flag, {}) for flag in (("--force",),)],
    *[(SQL, flag, {}) for flag in (("--key-prefix", "p"), ("--lock-ttl", "30"))],
    *[(frozenset({"redis"}), flag, {}) for flag in (
        ("--messages-table", "m"), ("--sessions-table", "s"))],
    *[(SERVERS, flag, {}) for flag in (("--format", "sqlite"), ("--format", "jsonl"))],
    # numbers: not finite, or out of range
    *[(ALL, flag, {}) for flag in (
        ("--pause", "inf"), ("--pause", "nan"), ("--pause", "-1"), ("--pause", "86400"),
        ("--lock-ttl", "inf"), ("--lock-ttl", "-inf"), ("--lock-ttl", "1e15"),
        ("--lock-ttl", "0.5"), ("--batch-size", "1" + "0" * 30), ("--batch-size", "0"),
        ("--batch-size", "x"), ("--workers", "100000"), ("--workers", "0"),
        ("--shards", "1000000", "--shard-from-env"), ("--shard", "0/1000000"))],
    # backup files and the state directory
    *[(ALL, flag, {}) for flag in (
        ("--backup-file", "TAKEN"), ("--backup-file", "MISSING/b.jsonl"),
        ("--backup-file", "FILE/b.jsonl"), ("--backup-file", "RO/b.jsonl"),
        ("--workers", "2", "--backup-file", "RO/b.jsonl"),
        ("--resume", "--backup-file", "RO/b.jsonl"))],
    (SERVERS, ("CWD=RO",), {}),
    (SERVERS, ("--backup-file", "NEW"), {"HOME": "/proc", "HANDOFF_CODEC_STATE_DIR": "",
                                         "XDG_STATE_HOME": ""}),
    (SERVERS, ("--backup-file", "NEW"), {"HANDOFF_CODEC_STATE_DIR": "RO/state"}),
]


@contextmanager
def _read_only(folder: Path) -> Iterator[Path]:
    """A directory no file can be created in: a read-only tmpfs as root, else mode 0555."""
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs",
                              str(folder)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _check(result: subprocess.CompletedProcess[str], what: object) -> None:
    assert result.returncode == 2, (what, result.returncode, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert lines and lines[-1].startswith("handoff-codec: error: "), (what, result.stderr)
    assert lines[:-1] == [], (what, result.stderr)  # one line (argparse's usage: not under --json)
    document = json.loads(result.stdout)
    assert document["error"]["exit"] == 2, what
    assert document["error"]["message"] == lines[-1].removeprefix("handoff-codec: error: ")


@pytest.mark.parametrize("kind", store_kinds())
def test_every_usage_error_exits_2_before_anything_is_touched(
        kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_legacy_reader()
    work = tmp_path / "work"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HANDOFF_CODEC_STATE_DIR", str(work / "state"))
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    monkeypatch.delenv("SOME_KEY", raising=False)
    with made_store(kind, work) as store, _read_only(tmp_path / "ro") as read_only:
        first = ["--backup-file", str(work / "first.jsonl")] if store.server else []
        ran = run_cli_here(store.target, *store.options, *first, "--json")
        [backup] = json.loads(ran.stdout)["backups"]
        store.fill(more_legacy())
        (work / "a-dir").mkdir()
        (work / "a-file").write_text("not a directory\n")
        (work / "taken.jsonl").write_text("an earlier backup\n")
        words = {"BACKUP": backup, "NEW": str(work / "new.jsonl"),
                 "MISSING": str(work / "missing"), "DIR": str(work / "a-dir"),
                 "FILE": str(work / "a-file"), "RO": str(read_only),
                 "TAKEN": str(work / "taken.jsonl")}

        def word(text: str) -> str:
            head, _, rest = text.partition("/")
            return words[head] + ("/" + rest if rest else "") if head in words else text

        monkeypatch.chdir(work)
        before = store.fingerprint()
        ran_cases = 0
        for kinds, argv, env in CASES:
            if kind not in kinds:
                continue
            argv = tuple(word(a) for a in argv)
            with monkeypatch.context() as patched:
                for name, value in env.items():
                    patched.setenv(name, word(value)) if value else patched.delenv(
                        name, raising=False)
                if argv[:1] == ("CWD=RO",):
                    patched.chdir(read_only)
                    argv = ()
                targets = [store.target] + ([UNREACHABLE[kind]] if kind in UNREACHABLE else [])
                for target in targets:
                    result = run_cli_here(target, *store.options, *argv, "--json")
                    _check(result, (kind, target, argv, env))
            assert store.fingerprint() == before, (kind, argv, env)
            ran_cases += 1
        assert ran_cases >= 40, ran_cases
        print(f"{kind}: {ran_cases} usage errors, each exit 2, nothing touched")
