"""A retried pod of a Kubernetes Indexed Job takes over the Redis shard lock its killed pod
left: the same Job uid (``HANDOFF_CODEC_JOB_ID``), index and layout. Anyone else still
waits for the lock's TTL (exit 2), and the killed run can write nothing more (fenced)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.migrate_support import ROOT, cli_env, require_legacy_reader, run_cli
from tests.support.server_stores import RedisStore, bulk_rows
from tests.support.services import redis_prefix


def _pod(url: str, prefix: str, backup: Path, index: int, job: str | None,
         *extra: str) -> list[str]:
    return [sys.executable, "-m", "handoff_codec", "migrate", url, "--key-prefix", prefix,
            "--shard-from-env", "--shards", "2", "--resume", "--backup-file", str(backup),
            "--lock-ttl", "600", "--json", *extra]


def _env(tmp_path: Path, index: int, job: str | None) -> dict[str, str]:
    env = {**cli_env(), "JOB_COMPLETION_INDEX": str(index),
           "HANDOFF_CODEC_STATE_DIR": str(tmp_path / "state")}
    env.pop("HANDOFF_CODEC_JOB_ID", None)
    if job is not None:
        env["HANDOFF_CODEC_JOB_ID"] = job
    return env


def test_a_retried_pod_of_the_same_job_takes_over_its_lock(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        import redis

        store = RedisStore(url, prefix)
        store.bulk(bulk_rows(400, legacy_every=2, sessions=40))
        client = redis.Redis.from_url(url)
        lock = f"handoff-codec:migrate:{prefix}:lock:1/2"
        backup = tmp_path / "b.jsonl"
        job = "0e3c7a51-9d7f-4d1e-8f6c-5b2a1c3d4e5f"
        # Pod 1 of the Job runs slowly and is killed (SIGKILL: the lock stays for 600 s).
        killed = subprocess.Popen(_pod(url, prefix, backup, 1, job, "--batch-size", "5",
                                       "--pause", "600"),
                                  env=_env(tmp_path, 1, job), cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not client.exists(lock):
            assert killed.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert client.pttl(lock) > 500_000  # the killed pod's lock is still there

        os.environ.setdefault("HANDOFF_CODEC_STATE_DIR", str(tmp_path / "state"))
        # Another Job, or a run with no Job identity, still waits for the lock (exit 2).
        for other in ("another-job", None):
            result = subprocess.run(_pod(url, prefix, tmp_path / f"x-{other}.jsonl", 1, other),
                                    env=_env(tmp_path, 1, other), cwd=ROOT,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 2, result.stderr
            assert "is being migrated by another run" in result.stderr
        # The retried pod of the same Job and index takes the lock over and finishes.
        retried = subprocess.run(_pod(url, prefix, backup, 1, job), env=_env(tmp_path, 1, job),
                                 cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert retried.returncode == 0, retried.stderr
        report = json.loads(retried.stdout)
        assert any("the lock of shard 1/2 was held by a pod of the same Job" in w and
                   "taken over" in w for w in report["warnings"])
        assert not client.exists(lock)  # released at the end
        # Shard 0 runs as usual; then every row is migrated.
        run_cli(url, "--key-prefix", prefix, "--shard", "0/2", "--backup-file",
                str(tmp_path / "b0.jsonl"), check_code=0)
        again = run_cli(url, "--key-prefix", prefix, "--dry-run", "--json", check_code=0)
        assert json.loads(again.stdout)["would_migrate"] == 0
        client.close()
