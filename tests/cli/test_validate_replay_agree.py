"""``validate`` and ``replay`` give one verdict at the command line: exit 0 when the items
replay to the target as they are; exit 1 when they cannot, or only with repairs (``replay``
then prints the repaired request and lists each repair on stderr). The API's ``validate()``
keeps reporting a ``name`` key and null content, whatever the target."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from handoff_codec.cli import main
from handoff_codec.replay import PROFILES, PROVIDERS, TARGETS, validate
from tests.replay.test_loads_output import named_turns
from tests.support.profiles import examples

NAMED_AND_NULL = [{"role": "user", "content": "hi", "name": "bob"},
                  {"role": "assistant", "content": None}]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def write(path: Path, items: Any) -> str:
    path.write_text(json.dumps(items), "utf-8")
    return str(path)


def test_replay_takes_every_target_validate_takes() -> None:
    assert set(PROVIDERS) == set(TARGETS)


@pytest.mark.parametrize("target", PROVIDERS)
def test_a_name_and_null_content_need_repairs_for_both(tmp_path: Path, target: str) -> None:
    path = write(tmp_path / "items.json", NAMED_AND_NULL)
    code, out, _ = run("validate", path, "--target", target)
    assert code == 1 and "null-as-empty" in out
    assert f"next: handoff-codec replay --target {target} {path}" in out
    code, out, err = run("replay", path, "--target", target)
    assert code == 1
    assert json.loads(out)  # the repaired request, printed all the same
    assert "handoff-codec: repair: item 1: null-as-empty: " in err
    assert f"the items do not replay to {target} as they are" in err


@pytest.mark.parametrize("target", [t for t in PROVIDERS if t != "chat_completions"])
def test_the_api_keeps_reporting_a_name_and_null_content(target: str) -> None:
    report = validate(NAMED_AND_NULL, target=target)
    assert [(p.index, p.code) for p in report.errors][:2] == [(0, "name-key"), (1, "null-content")]
    assert "handoff-codec replay" in report.errors[0].message


NAMES = [{"role": "user", "name": "alice", "content": "hi"},
         {"role": "assistant", "name": "bot", "content": "hello"}]


@pytest.mark.parametrize("target", PROVIDERS)
def test_the_api_and_the_cli_agree_on_names(tmp_path: Path, target: str) -> None:
    """A name is an error for the API exactly where the command line needs a repair for it."""
    report = validate(NAMES, target=target)
    code, _, _ = run("validate", write(tmp_path / "items.json", NAMES), "--target", target)
    assert report.ok == (code == 0) == (target == "chat_completions")
    for problem in report.problems:  # no wording from inside the converter
        assert "Agents SDK" not in problem.message and "converter" not in problem.message


@pytest.mark.parametrize("target", PROVIDERS)
@pytest.mark.parametrize("names", ["drop", "inline"])
def test_names_drop_and_inline_apply_to_every_target(tmp_path: Path, target: str,
                                                     names: str) -> None:
    code, out, err = run("replay", write(tmp_path / "items.json", NAMES), "--target", target,
                         "--names", names)
    assert code == 1 and '"name"' not in out
    assert ("[alice] " in out) == (names == "inline")
    assert f"repair: item 0: name-{'dropped' if names == 'drop' else 'inlined'}" in err


def test_names_keep_is_the_default_and_keeps_what_chat_completions_takes(tmp_path: Path) -> None:
    code, out, _ = run("replay", write(tmp_path / "items.json", NAMES), "--target",
                       "chat_completions")
    assert code == 0
    assert [m.get("name") for m in json.loads(out)["messages"]] == ["alice", "bot"]


@pytest.mark.parametrize("target", TARGETS)
def test_null_content_advice_is_no_error_for_the_target(target: str) -> None:
    (null,) = [p for p in validate(NAMED_AND_NULL, target=target).errors
               if p.code == "null-content"]
    takes_empty = not validate([{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": ""}], target=target).errors
    assert ('use ""' in null.message) is takes_empty, null.message
    if not takes_empty:
        assert PROFILES[target].provider in null.message


@settings(examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(named_turns())
def test_validate_and_replay_agree(items: list[dict[str, Any]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "items.json", items)
        for target in PROVIDERS:
            checked, report, _ = run("validate", path, "--target", target)
            replayed, request, err = run("replay", path, "--target", target)
            assert checked == replayed, (target, report, err)
            assert checked in (0, 1)
            if replayed == 0:
                assert "handoff-codec: repair: " not in err
                assert "\nok: " in "\n" + report
            elif request:  # repaired: the request is printed, and each repair listed
                assert json.loads(request) is not None
                assert "handoff-codec: repair: " in err
                assert "repair" in report
