"""The runner fails dishonest decoders: a refusal is told from a crash, recoveries are checked.

Each decoder here is a real program run by ``conformance/run.py`` through the
protocol (one process per vector): our adapter with its answer bent one way,
or a program that crashes. A refusal is exit 65 with one JSON error object;
anything else that is not exit 0 is a crash, and fails every vector.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import SUITE, runner

ADAPTER = SUITE / "decoders" / "handoff_codec.py"
# Our adapter, its answer on an accepted text rewritten by BEND (a function of the
# JSON document it printed).
WRAPPER = """\
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("adapter", {adapter!r})
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)
code, out = adapter.decode(sys.stdin.buffer.read())
if code == 0:
    doc = json.loads(out)
{bend}
    out = json.dumps(doc).encode()
sys.stdout.buffer.write(out)
sys.exit(code)
"""
BENDS = {
    "recoveries_null": "    doc['recoveries'] = None",
    "lost_as_string": "    for r in doc['recoveries']: r['lost'] = 'true' if r['lost'] else False",
    "lost_as_integer": "    for r in doc['recoveries']: r['lost'] = int(r['lost'])",
}
LEGACY = "decode/legacy/go-denggeng"


def _decoder(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return f"{sys.executable} {path}"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SUITE / "run.py"), "--jobs", "2", *args],
                          capture_output=True, text=True, timeout=600, cwd=SUITE.parent)


def _failed(stdout: str) -> set[str]:
    return {line.split(":", 1)[0].removeprefix("FAIL ") for line in stdout.splitlines()
            if line.startswith("FAIL ")}


def _expected_recoveries(folder: str) -> dict[str, list[dict[str, object]]]:
    """The vectors of ``folder`` that expect recoveries, and those recoveries."""
    return {v.name: json.loads(v.recoveries.read_text(encoding="utf-8"))
            for v in runner.discover(SUITE, "decoder", [folder]) if v.recoveries is not None}


def test_the_honest_adapter_passes_the_folder_the_bent_ones_fail_on(tmp_path: Path) -> None:
    source = WRAPPER.format(adapter=str(ADAPTER), bend="    pass")
    proc = _run("--decoder", _decoder(tmp_path, "honest", source), "--only", LEGACY)
    assert proc.returncode == 0, proc.stdout
    count = len(runner.discover(SUITE, "decoder", [LEGACY]))
    assert proc.stdout.splitlines()[-1] == f"{count} passed, 0 failed"


@pytest.mark.parametrize("bend", sorted(BENDS))
def test_recoveries_that_are_null_or_not_booleans_fail(tmp_path: Path, bend: str) -> None:
    expected = _expected_recoveries(LEGACY)
    assert any(r["lost"] for rs in expected.values() for r in rs)  # the folder can tell
    source = WRAPPER.format(adapter=str(ADAPTER), bend=BENDS[bend])
    proc = _run("--decoder", _decoder(tmp_path, bend, source), "--only", LEGACY)
    assert proc.returncode == 1, proc.stdout
    failed = _failed(proc.stdout)
    if bend == "recoveries_null":
        # The object form must report its recoveries: null is no list, on any vector.
        assert failed == {v.name for v in runner.discover(SUITE, "decoder", [LEGACY])}
    elif bend == "lost_as_string":  # "true" where the recovery lost something
        assert failed == {name for name, rs in expected.items() if any(r["lost"] for r in rs)}
    else:  # 1 and 0: every vector that expects a recovery
        assert failed == {name for name, rs in expected.items() if rs}
    assert all("lost: boolean" in line or "recoveries as a list" in line
               for line in proc.stdout.splitlines() if line.startswith("FAIL "))


CRASHES = {
    # An uncaught exception: a traceback and exit 1, on every input.
    "traceback": "import sys\nsys.stdin.buffer.read()\nraise RuntimeError('boom')\n",
    # The refusal's exit status, without the error object.
    "bare_65": "import sys\nsys.stdin.buffer.read()\nprint('no')\nsys.exit(65)\n",
    # The error object, but a crash's exit status.
    "object_exit_1": ("import json, sys\nsys.stdin.buffer.read()\nprint(json.dumps({'error': "
                      "{'line': None, 'column': None, 'reason': 'x'}}))\nsys.exit(1)\n"),
}


@pytest.mark.parametrize("crash", sorted(CRASHES))
def test_a_decoder_that_crashes_on_every_input_fails_every_vector(tmp_path: Path,
                                                                  crash: str) -> None:
    folders = "decode/invalid/body,decode/invalid/limits,decode/valid/envelope"
    count = len(runner.discover(SUITE, "decoder", folders.split(",")))
    proc = _run("--decoder", _decoder(tmp_path, crash, CRASHES[crash]), "--only", folders)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == f"0 passed, {count} failed"
    invalid = [line for line in proc.stdout.splitlines()
               if line.startswith("FAIL decode/invalid/")]
    assert invalid and all("expected a refusal (exit 65 with an error object), got exit"
                           in line and "(a crash)" in line for line in invalid)


def test_a_crash_on_an_impl_defined_vector_fails_it(tmp_path: Path) -> None:
    folder = tmp_path / "impl-defined" / "x"
    folder.mkdir(parents=True)
    (folder / "any.txt").write_text("anything")
    decoder = _decoder(tmp_path, "crash", CRASHES["traceback"])
    proc = _run("--decoder", decoder, "--vectors", str(tmp_path))
    assert proc.returncode == 1
    failure, last = proc.stdout.splitlines()
    assert failure.startswith("FAIL impl-defined/x/any: expected the items or a refusal, got "
                              "exit 1 (a crash)")
    assert last == "0 passed, 1 failed"


def test_the_last_line_says_which_vectors_the_mode_did_not_run(tmp_path: Path) -> None:
    for top in ("decode/valid/envelope", "encode/names"):
        shutil.copytree(SUITE / top, tmp_path / top)
    decoders = len(runner.discover(tmp_path, "decoder"))
    encoders = len(runner.discover(tmp_path, "encoder"))
    assert decoders and encoders
    proc = _run("--decoder", f"{sys.executable} {ADAPTER}", "--vectors", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[-1] == (
        f"{decoders} passed, 0 failed; {encoders} encode vectors not run (they need "
        "--encoder)")
    encoder = f"{sys.executable} {SUITE / 'encoders' / 'handoff_codec.py'}"
    proc = _run("--encoder", encoder, "--vectors", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[-1] == (
        f"{encoders} passed, 0 failed; {decoders} decode vectors not run (they need "
        "--decoder)")
    # Asked for one mode's vectors only, there is nothing to say.
    proc = _run("--decoder", f"{sys.executable} {ADAPTER}", "--vectors", str(tmp_path),
                "--only", "decode/valid")
    assert proc.stdout.splitlines()[-1] == f"{decoders} passed, 0 failed"
