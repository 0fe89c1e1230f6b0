"""docs/spec.md agrees with the grammar and with the conformance suite.

Each numbered example of the spec is a vector: its text and items must be the
vector's files, byte for byte, and the readers built from the grammar (strict
and lenient, each with the fast engine and with the Lark reference) must read
it as the spec says. Each ```lark excerpt must be in a grammar file, and the
table of writers in "Writer evidence" must be what the reader knows of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec.format.content import as_text_message

from .support import SUITE

ROOT = SUITE.parent
SPEC = ROOT / "docs" / "spec.md"
GRAMMAR = "\n".join((ROOT / "grammar" / name).read_text(encoding="utf-8")
                    for name in ("summary.lark", "legacy.lark"))
EXAMPLE = re.compile(r"<!-- example (\d+): (\S+) -->\n(.*?)(?=<!-- example |\n## |\Z)", re.S)
FENCE = re.compile(r"```(\w+)\n(.*?)\n```", re.S)


def examples(spec: str) -> list[tuple[int, str, list[tuple[str, str]]]]:
    """(number, vector, [(fence kind, body), ...]) for every example of ``spec``."""
    return [(int(m.group(1)), m.group(2), FENCE.findall(m.group(3)))
            for m in EXAMPLE.finditer(spec)]


def _text_of(text: str) -> str:
    """The summary text: the text itself, or a message's content (str or output_text parts)."""
    if not text.startswith("{"):
        return text
    content = as_text_message(json.loads(text))["content"]
    assert isinstance(content, str)
    return content


def check_example(vector: str, blocks: list[tuple[str, str]]) -> None:
    """Raise AssertionError where the example, its vector and the grammar's readers disagree."""
    base = SUITE / vector
    if vector.startswith("encode/"):
        (_, items_json), (_, text) = blocks
        items = json.loads(items_json)
        assert items == json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
        assert text == base.with_suffix(".txt").read_text(encoding="utf-8")
        assert handoff_codec.dumps(items) == text
        assert handoff_codec.loads(text, strict=True) == items
        return
    text = blocks[0][1]
    on_disk_text = base.with_suffix(".txt").read_text(encoding="utf-8")
    assert text == on_disk_text, "text differs from the vector"
    if vector.startswith("decode/invalid/"):
        assert len(blocks) == 1
        if text.startswith("{"):
            message = json.loads(text)
            assert not handoff_codec.format.default_codec.is_summary(as_text_message(message))
            assert handoff_codec.flatten([message]) == [message]
            return
        for kwargs in ({"strict": True}, {"strict": True, "engine": "lark"}, {}):
            with pytest.raises(handoff_codec.DecodeError):
                handoff_codec.loads(text, **kwargs)
        return
    items = json.loads(blocks[1][1])
    assert items == json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
    summary = _text_of(text)
    reports = [handoff_codec.decode(summary, engine=engine) for engine in ("fast", "lark")]
    if vector.startswith("decode/valid/"):
        assert len(blocks) == 2
        assert handoff_codec.loads(summary, strict=True) == items
        assert handoff_codec.loads(summary, strict=True, engine="lark") == items
        for report in reports:
            assert report.items == items and not list(report.recoveries)
        return
    recoveries: list[dict[str, Any]] = json.loads(blocks[2][1]) if len(blocks) > 2 else []
    on_disk = base.with_name(base.name + ".recoveries.json")
    want = json.loads(on_disk.read_text(encoding="utf-8")) if on_disk.exists() else []
    assert recoveries == want
    for report in reports:
        assert report.items == items
        got = sorted((r.line, str(r.kind), r.lost) for r in report.recoveries)
        assert got == sorted((r["line"], r["kind"], r["lost"]) for r in recoveries)


SPEC_TEXT = SPEC.read_text(encoding="utf-8")
EXAMPLES = examples(SPEC_TEXT)


def test_examples_are_numbered_in_order() -> None:
    assert [n for n, _, _ in EXAMPLES] == list(range(1, len(EXAMPLES) + 1))
    assert len(EXAMPLES) >= 20
    assert SPEC_TEXT.count("<!-- example ") == len(EXAMPLES)


@pytest.mark.parametrize(("number", "vector", "blocks"), EXAMPLES,
                         ids=[f"{n}-{v}" for n, v, _ in EXAMPLES])
def test_example_agrees_with_grammar_and_suite(number: int, vector: str,
                                               blocks: list[tuple[str, str]]) -> None:
    check_example(vector, blocks)


def test_grammar_excerpts_are_the_grammar() -> None:
    excerpts = [body for kind, body in FENCE.findall(SPEC_TEXT) if kind == "lark"]
    assert excerpts
    for body in excerpts:
        assert body in GRAMMAR, body


def _rows(heading: str) -> list[list[str]]:
    """Every table row of the spec's section ``heading``, cells stripped (headers and
    separators too)."""
    section = SPEC_TEXT.split(heading, 1)[1].split("\n## ", 1)[0]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.split("\n") if line.startswith("| ")]


EVIDENCE = "## 9. Writer evidence"


def test_the_forms_are_the_readers() -> None:
    from handoff_codec.format.read.generations import Form

    names = [name for name in vars(Form) if name.isupper() and name != "ALL"]
    forms = [row[0].strip("`") for row in _rows(EVIDENCE) if row[0].strip("`").isupper()]
    assert forms == names


def test_the_writers_table_is_what_the_reader_knows() -> None:
    """Each writer's row: its name, format, forms, whether it escapes line breaks and
    whether it wrote lists after the colon, as handoff_codec/format/read/generations.py
    describes them."""
    from handoff_codec.format.read.generations import GENERATIONS, Form

    names = [name for name in vars(Form) if name.isupper() and name != "ALL"]
    rows = [row for row in _rows(EVIDENCE) if len(row) == 5 and row[1].startswith("`")]
    assert [row[0] for row in rows] == [generation.name for generation in GENERATIONS]
    for row, generation in zip(rows, GENERATIONS, strict=True):
        forms = {form.strip("` ") for form in row[2].split(",")}
        assert row[1] == f"`{generation.format}`", row
        assert forms == {name for name in names if generation.writes & getattr(Form, name)}
        assert (row[3], row[4]) == ("yes" if generation.escapes_line_breaks else "no",
                                    "yes" if generation.lists_after_colon else "no"), row


def test_a_changed_example_fails(tmp_path: Path) -> None:
    """The check is not vacuous: an example whose items or text differ is caught."""
    _, vector, blocks = next(e for e in EXAMPLES if e[1] == "decode/valid/plain/simple_chat")
    changed = [blocks[0], ("json", blocks[1][1].replace("Hello!", "Hi!"))]
    with pytest.raises(AssertionError):
        check_example(vector, changed)
    with pytest.raises(AssertionError):
        check_example(vector, [("text", blocks[0][1].replace("1. user", "1. system")), blocks[1]])
