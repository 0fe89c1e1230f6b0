"""CI for the conformance suite: our decoder (both modes) and encoder pass every vector.

The adapters run in-process here (the runner's ``run`` takes any call from
stdin bytes to exit status and stdout); one test runs the real command lines
through ``run.py`` on a few folders, so the protocol itself stays honest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .support import SUITE, decoder, encoder, load, runner


def _call(function: Callable[..., tuple[int, bytes]],
          **kwargs: bool) -> Callable[[bytes], tuple[int, bytes, bytes]]:
    def call(data: bytes) -> tuple[int, bytes, bytes]:
        code, out = function(data, **kwargs)
        return code, out, b""
    return call


def _failed(result: Any) -> set[str]:
    return {line.split(":", 1)[0].removeprefix("FAIL ") for line in result.failures}


def test_suite_sizes() -> None:
    vectors = runner.discover(SUITE, "decoder") + runner.discover(SUITE, "encoder")
    count: dict[str, int] = {}
    for v in vectors:
        count[v.category] = count.get(v.category, 0) + 1
    writers = {v.name.split("/")[2] for v in vectors if v.category == "decode/legacy"}
    assert count["decode/valid"] >= 60 and count["decode/invalid"] >= 30 and count["encode"] >= 40
    assert len(writers) >= 6
    assert sum(count.values()) >= 300


def test_lenient_decoder_passes_every_decode_vector() -> None:
    vectors = runner.discover(SUITE, "decoder", list(runner.DECODE_CATEGORIES))
    result = runner.run(vectors, _call(decoder.decode), "decoder")
    assert not _failed(result), "\n".join(result.failures)
    assert result.passed == len(vectors) - result.skipped


def test_strict_decoder_passes_valid_and_invalid() -> None:
    vectors = runner.discover(SUITE, "decoder", list(runner.STRICT_CATEGORIES))
    assert any(v.category == "decode/strict-invalid" for v in vectors)
    result = runner.run(vectors, _call(decoder.decode, strict=True), "decoder", strict=True)
    assert result.failed == 0, "\n".join(result.failures)
    assert result.passed == len(vectors)


def test_strict_invalid_vectors_are_refused_only_by_a_strict_decoder() -> None:
    """A strict decoder that reads them fails them; a lenient one passes by reading them."""
    vectors = runner.discover(SUITE, "decoder", ["decode/strict-invalid"])
    as_strict = runner.run(vectors, _call(decoder.decode), "decoder", strict=True)
    assert as_strict.passed == 0 and as_strict.failed == len(vectors) >= 10
    lenient = runner.run(vectors, _call(decoder.decode, strict=True), "decoder")
    assert lenient.passed == 0 and lenient.failed == len(vectors)


def test_encoder_passes_every_encode_vector() -> None:
    vectors = runner.discover(SUITE, "encoder")
    result = runner.run(vectors, _call(encoder.encode), "encoder")
    assert result.failed == 0, "\n".join(result.failures)
    assert result.passed == len(vectors) >= 40


def test_both_modes_agree_on_every_valid_vector() -> None:
    vectors = runner.discover(SUITE, "decoder", ["decode/valid"])
    assert vectors
    for vector in vectors:
        data = vector.input.read_bytes()
        lenient, strict = decoder.decode(data), decoder.decode(data, strict=True)
        assert lenient[0] == strict[0] == 0, vector.name
        assert json.loads(lenient[1]) == json.loads(strict[1]), vector.name


def test_vectors_are_what_the_generator_writes() -> None:
    generate = load("generate.py", "conformance_generate")
    files = generate.build().files
    on_disk = {p.relative_to(SUITE).as_posix(): p.read_bytes()
               for top in ("decode", "encode", "impl-defined") for p in (SUITE / top).rglob("*")
               if p.is_file()}
    assert {k: v.encode("utf-8") for k, v in files.items()} == on_disk


def _run(*args: str, cwd: Path = SUITE.parent) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SUITE / "run.py"), *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def test_runner_runs_the_real_commands() -> None:
    """The protocol as documented: one process per vector, the last line, the exit status."""
    dec = f"{sys.executable} {SUITE / 'decoders' / 'handoff_codec.py'}"
    proc = _run("--decoder", dec, "--only", "decode/valid/envelope,decode/invalid/envelope")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    last = proc.stdout.splitlines()[-1]
    folders = ["decode/valid/envelope", "decode/invalid/envelope"]
    count = len(runner.discover(SUITE, "decoder", folders))
    assert last == f"{count} passed, 0 failed"
    enc = f"{sys.executable} {SUITE / 'encoders' / 'handoff_codec.py'}"
    proc = _run("--encoder", enc, "--only", "encode/names")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1].endswith(" passed, 0 failed")


def test_runner_reports_failures_on_vectors_of_ones_own(tmp_path: Path) -> None:
    good = tmp_path / "decode" / "valid" / "mine"
    good.mkdir(parents=True)
    text = (SUITE / "decode" / "valid" / "envelope" / "one_record.txt").read_bytes()
    (good / "ok.txt").write_bytes(text)
    (good / "ok.json").write_text('[{"role": "user", "content": "hello"}]')
    (good / "wrong.txt").write_bytes(text)
    (good / "wrong.json").write_text('[{"role": "user", "content": "bye"}]')
    bad = tmp_path / "decode" / "invalid" / "mine"
    bad.mkdir(parents=True)
    (bad / "accepted.txt").write_bytes(text)
    (tmp_path / "impl-defined" / "x").mkdir(parents=True)
    (tmp_path / "impl-defined" / "x" / "any.txt").write_bytes(text)
    dec = f"{sys.executable} {SUITE / 'decoders' / 'handoff_codec.py'}"
    proc = _run("--decoder", dec, "--vectors", str(tmp_path))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    assert lines[-1] == "1 passed, 2 failed, 1 skipped"
    assert any(line.startswith("FAIL decode/valid/mine/wrong: expected ") and '"bye"' in line
               and '"hello"' in line for line in lines)
    refused = "FAIL decode/invalid/mine/accepted: expected a refusal (exit 65"
    assert any(line.startswith(refused) for line in lines)
    proc = _run("--decoder", dec, "--vectors", str(tmp_path), "--only", "decode/valid/mine/ok")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_runner_compares_json_types_exactly() -> None:
    assert runner.same([1, {"a": True}], [1, {"a": True}])
    assert not runner.same([1], [1.0]) and not runner.same([True], [1])
    assert not runner.same([1, 2], [2, 1])


@pytest.mark.parametrize("text", [b"", b"\xff\xfe", b"[1]", b'{"role": "user", "content": "x"}'])
def test_decoder_adapter_refuses_what_is_no_summary(text: bytes) -> None:
    for code, out in (decoder.decode(text), decoder.decode(text, strict=True)):
        assert code == runner.REFUSED == 65
        error = runner.refusal(code, out)
        assert error is not None and error["reason"]


@pytest.mark.parametrize("data", [b"", b"{}", b"[1]", b'[{"content": NaN}]', b"\xff"])
def test_encoder_adapter_refuses_what_is_no_item_list(data: bytes) -> None:
    assert encoder.encode(data) == (1, b"")
