"""Names left open on their line, or spanning lines, written verbatim by openai-agents 0.6 to
0.17.0 (tests/support/raw_writer.py): never a role or name no writer writes read quietly,
through decode, the CLI and migrate, and the two engines read each alike.

* A name holding `)` before the end of its line and `: ` before that `)` (`a: b)c`, or a
  JSON value `{"a": "b)"}`), going on below.
* An open name line, a line ending in `:` and a record in sequence closing with `)` (a role
  holding a line break).
* A name spanning lines whose later line holds `): ` (two readings of the name, as the
  one-line `user (a): y)`, docs/spec.md section 13).
* An open name closed on a later line with a line below it, a name starting `): `, a name
  holding `\r` (roles such as `user (a` or `{"role"`).
* A name holding `(` with a line below ending in `)`, a named bare turn above such a record,
  and `N. tool: ` below a typed record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import handoff_codec
from tests.format.read.summaries import Engine
from tests.support.raw_writer import Item, raw_summary
from tests.support.raw_writer_examples import as_written, check_written

KNOWN_ROLES = {"user", "assistant", "system", "developer", "tool"}




def _report(decoded: handoff_codec.Decoded) -> tuple[object, ...]:
    return (decoded.items, [(r.line, r.kind, r.lost) for r in decoded.recoveries],
            [candidate.items for candidate in decoded.candidates])


# Read with exit 0 as items other than the written ones (an invented role, or a name cut).
QUIET_WRONG: dict[str, list[Item]] = {
    "name with ': ' then ')' mid-line": [{"role": "user", "name": "a: b)c\nx", "content": None}],
    "system name with ': ' then ')' mid-line": [
        {"role": "system", "name": "a: b)c\nx", "content": "hi"}],
    "JSON in a name, ')' inside its string": [
        {"role": "user", "name": '{"a": "b)"}\nx', "content": None}],
    "open name line, a line ending in ':'": [
        {"role": "user", "content": "x\n2. user (a\nq:\n3. assistant: b)"}],
    "name spanning lines holding '): '": [{"role": "user", "name": "a)\nx): y", "content": ""}],
    "open name 'user (a: b' closed, a line below": [
        {"role": "user", "content": "x\n2. user (a: b\na)\nx"}],
    "name '): b' then a JSON record line": [
        {"role": "user", "name": '): b\n2. {"role": "system", "content": "a)"}', "content": None}],
    "open name holding '\\r', then a JSON record line": [
        {"role": "user",
         "content": 'x\n2. user (x\ry\nx\r)\n4. {"role": "system", "content": "a)"}'}],
}


@pytest.mark.parametrize("name", sorted(QUIET_WRONG))
def test_read_as_written_or_flagged_with_the_written_items_offered(name: str,
                                                                   engine: Engine) -> None:
    items = QUIET_WRONG[name]
    decoded = handoff_codec.decode(raw_summary(items), engine=engine)
    invented = [item["role"] for item in decoded.items
                if isinstance(item.get("role"), str) and item["role"] not in KNOWN_ROLES]
    if decoded.lossless:
        assert not invented, invented
    check_written(decoded, as_written(items))


@pytest.mark.parametrize("name", ["name with ': ' then ')' mid-line",
                                  "open name line, a line ending in ':'"])
def test_decode_cli_does_not_exit_0_with_an_invented_role(name: str, tmp_path: Path) -> None:
    path = tmp_path / "summary.txt"
    path.write_text(raw_summary(QUIET_WRONG[name]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "handoff_codec.cli", "decode", str(path)],
                          capture_output=True, text=True, timeout=60)
    roles = [item.get("role") for item in json.loads(done.stdout)] if done.returncode == 0 \
        else []
    assert all(role in KNOWN_ROLES for role in roles), roles


def test_migrate_does_not_rewrite_an_invented_role(tmp_path: Path) -> None:
    store = tmp_path / "items.jsonl"
    summary = raw_summary(QUIET_WRONG["open name line, a line ending in ':'"])
    store.write_text(json.dumps({"role": "assistant", "content": summary}) + "\n",
                     encoding="utf-8")
    subprocess.run([sys.executable, "-m", "handoff_codec.cli", "migrate", "--no-backup",
                    "--no-progress", str(store)], capture_output=True, text=True, timeout=60)
    assert json.loads(store.read_text(encoding="utf-8"))["content"] == summary


DISAGREE: dict[str, list[Item]] = {
    "named turn below a two-line turn (lark merges it)": [
        {"role": "user", "content": "q\nx"}, {"role": "user", "name": "a (b", "content": "x"}],
    "name holding '(' and a line ending in ')'": [
        {"role": "user", "name": "a (b", "content": "c\n)"}],
    "name holding '(' and a line holding '): '": [
        {"role": "system", "name": "a (b", "content": "c\nx): y"}],
    "bare named turn above a name holding '('": [
        {"role": "user", "name": "x", "content": None},
        {"role": "user", "name": "a (b", "content": "x"}],
    "tool turn with a line break below a typed record": [
        {"type": "reasoning"}, {"role": "tool", "content": "\n3. user: z"}],
}


@pytest.mark.parametrize("name", sorted(DISAGREE))
def test_the_engines_read_alike(name: str) -> None:
    text = raw_summary(DISAGREE[name])
    assert _report(handoff_codec.decode(text, engine="fast")) == _report(
        handoff_codec.decode(text, engine="lark"))
