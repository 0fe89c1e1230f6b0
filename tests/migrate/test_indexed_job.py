"""The Kubernetes Indexed Job of docs/migration.md runs the shard its pod index names."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

# Private: the shard is worked out from parsed flags and an injected environment, which
# the CLI's public face (main) cannot be given without a real Job.
from handoff_codec.cli import CliError, _parser
from handoff_codec.cli._migrate_server import shard_from
from handoff_codec.migrate.stores import Shard
from tests.support.migrate_support import ROOT

DOC = ROOT / "docs" / "migration.md"


def _manifest() -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    jobs = [block for block in blocks if "kind: Job" in block]
    assert len(jobs) == 1, "docs/migration.md holds one Job manifest"
    return jobs[0]


def _flow_list(text: str, key: str) -> list[str]:
    """The YAML flow sequence ``key: [...]`` (JSON strings only), possibly over lines."""
    match = re.search(rf"^\s*{key}:\s*(\[.*?\])", text, re.S | re.M)
    assert match, f"no {key}: [...] in the manifest"
    value: list[str] = json.loads(match.group(1))
    return value


def _scalar(text: str, key: str) -> str:
    match = re.search(rf"^\s*{key}:\s*(\S+)", text, re.M)
    assert match, f"no {key}: in the manifest"
    return match.group(1)


def _env_names(text: str) -> list[str]:
    return re.findall(r"^\s*- name:\s*(\S+)", text.split("env:", 1)[1], re.M)


def _argv(manifest: str, env: dict[str, str]) -> list[str]:
    """The container's command line, with Kubernetes' $(VAR) expansion from ``env``."""
    words = _flow_list(manifest, "command") + _flow_list(manifest, "args")
    return [re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], word) for word in words]


def test_the_job_runs_shard_k_of_n_in_pod_k() -> None:
    manifest = _manifest()
    assert _scalar(manifest, "completionMode") == "Indexed"
    completions = int(_scalar(manifest, "completions"))
    names = _env_names(manifest)
    env = {name: f"postgresql://app@db.internal/prod-{name}" for name in names}
    argv = _argv(manifest, env)
    assert argv[:2] == ["handoff-codec", "migrate"]
    seen = set()
    for index in range(completions):
        args = _parser().parse_args(argv[1:])
        assert args.path == env[re.search(r"\$\((\w+)\)", " ".join(
            _flow_list(manifest, "args"))).group(1)]  # type: ignore[union-attr]
        shard = shard_from(args, {"JOB_COMPLETION_INDEX": str(index)})
        assert shard == Shard(index, completions)
        assert args.resume  # a retried pod continues its shard
        seen.add(shard)
    assert len(seen) == completions


@pytest.mark.parametrize("index", ["", "x", "-1", "4"])
def test_an_index_out_of_range_is_a_usage_error(index: str) -> None:
    args = _parser().parse_args(["migrate", "redis://h/0", "--shard-from-env", "--shards", "4"])
    with pytest.raises(CliError) as caught:
        shard_from(args, {"JOB_COMPLETION_INDEX": index})
    assert caught.value.code == 2


def test_shard_from_env_needs_shards_and_excludes_shard() -> None:
    def error(*argv: str) -> Any:
        with pytest.raises(CliError) as caught:
            shard_from(_parser().parse_args(["migrate", "redis://h/0", *argv]),
                       {"JOB_COMPLETION_INDEX": "0"})
        return caught.value

    assert "--shards" in str(error("--shard-from-env"))
    assert "not both" in str(error("--shard-from-env", "--shards", "2", "--shard", "0/2"))
    assert "--shard-from-env" in str(error("--shards", "2"))
