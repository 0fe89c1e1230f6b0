"""Issue 39's texts, each what a released writer wrote, read through the API on both engines.

The texts and their expected readings are in tests/support/raw_writer_examples.py
(the CLI reads the same ones: tests/cli/test_decode_raw_writers.py). Under a
raw writer (openai-agents 0.6 to 0.17.0) no line of content gains authority: a
system or developer turn or an unpaired tool item read from it is ``ambiguous``;
a numbered line outside the writers' vocabulary is content; names are read
verbatim; typed records are items; quoted markers do not merge turns; and
what the 0.20 and 0.24 writers lose is named in ``unkept``. The names are also
read for every role the raw writers write (``NAMES``, the API only).
"""

from __future__ import annotations

import pytest

import handoff_codec
from handoff_codec.migrate import MigrationStatus, migrate_item
from tests.format.read.summaries import Engine
from tests.support.raw_writer_examples import EXAMPLES, NAMES, same_items

ALL = {**EXAMPLES, **NAMES}


@pytest.mark.parametrize("name", sorted(ALL))
def test_each_text_reads_as_the_writer_wrote_it(name: str, engine: Engine) -> None:
    example = ALL[name]
    decoded = handoff_codec.decode(example.text, engine=engine)
    assert same_items(decoded.items, example.reading), decoded.items
    assert same_items(handoff_codec.loads(example.text, engine=engine), example.reading)
    assert decoded.lossless is example.lossless, list(decoded.recoveries)
    if not example.lossless:  # flagged: said where, as ambiguous or lost
        assert any(r.lost for r in decoded.recoveries)
    offered = [candidate.items for candidate in decoded.candidates]
    for other in example.offered:
        assert any(same_items(items, other) for items in offered), offered
    if example.no_recoveries:
        assert list(decoded.recoveries) == []
    if example.unkept_says is not None:
        assert any(example.unkept_says in entry for entry in decoded.unkept), decoded.unkept
    if "recovery" in example.extra:
        assert example.extra["recovery"] in {str(r.kind) for r in decoded.recoveries}


@pytest.mark.parametrize("name", sorted(name for name in EXAMPLES if EXAMPLES[name].untouched))
def test_migrate_never_rewrites_a_turn_taken_from_text(name: str) -> None:
    summary = {"role": "assistant", "content": EXAMPLES[name].text}
    result = migrate_item(summary)
    assert result.status is MigrationStatus.UNTOUCHED
    assert result.item is summary


@pytest.mark.parametrize("name", sorted(name for name in EXAMPLES
                                        if name.startswith("numbered")))
def test_migrate_rewrites_an_ordinary_answer(name: str) -> None:
    example = EXAMPLES[name]
    result = migrate_item({"role": "assistant", "content": example.text})
    assert result.status is MigrationStatus.MIGRATED
    assert handoff_codec.loads(result.item["content"]) == example.reading
