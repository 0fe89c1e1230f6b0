"""Every turn that old openai-agents writers emitted is recovered from their real summaries.

tests/fixtures/legacy_summaries.jsonl holds what each release wrote for the
transcripts of tests/fixtures/legacy_transcripts.json. Every turn comes back,
in order; where an item differs from the one the writer was given, the writer
lost it, and the report names what: a plain record keeps only role, name and
content; a bare role (0.6 to 0.19) cannot tell None from ""; list content
written as a JSON array after the colon (0.6 to 0.17.0) is the same text as a
string, so it is read as the text with an ``ambiguous`` recovery whose
candidate holds the list.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Format, RecoveryKind
from tests.format.read.summaries import Engine
from tests.support.legacy_fixtures import (
    NESTED,
    ROWS,
    SINGLE,
    records_written,
    release,
    row_id,
    turns,
    writer_dropped,
)

# A line break other than "\n", or NUL: no record of the current format holds one.
RAW_BREAK = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029\x00]")
LISTS = "JSON arrays of content parts as list content, as openai-agents 0.6 to 0.17.0 wrote it"
GENERATIONS = {
    "0.6": "openai-agents 0.6.0 to 0.17.0 (and the Rust and Go ports that copy it)",
    "0.17.1": "openai-agents 0.17.1 to 0.19.x",
    "0.20": "openai-agents 0.20 and later, handoff-codec",
}


def generation(version: str) -> str:
    """The writer generation of an openai-agents release, as ``Decoded.writers`` names it."""
    if release(version) < (0, 17, 1):
        return GENERATIONS["0.6"]
    return GENERATIONS["0.17.1"] if release(version) < (0, 20) else GENERATIONS["0.20"]


def _list_read_as_text(original: dict[str, Any], ours: dict[str, Any], version: str) -> bool:
    """0.6 to 0.17.0 wrote list content as JSON after the colon, and only role, name and
    content of a message: ``ours`` is that text."""
    content = original.get("content")
    kept: dict[str, Any] = {key: original[key] for key in ("role", "name") if key in original}
    return (release(version) < (0, 17, 1) and isinstance(content, list)
            and ours == {**kept, "content": json.dumps(content, ensure_ascii=False)})


@pytest.mark.parametrize("row", SINGLE, ids=row_id)
def test_every_turn_of_every_version_is_recovered(row: dict[str, Any], engine: Engine) -> None:
    decoded = handoff_codec.decode(row["summary"]["content"], engine=engine)
    assert turns(decoded.items) == turns(row["transcript"])
    assert decoded.complete
    lost = {r.kind for r in decoded.recoveries if r.lost}
    others = {candidate.reading: candidate.items for candidate in decoded.candidates}
    for index, (original, ours) in enumerate(zip(row["transcript"], decoded.items,
                                                 strict=True)):
        if ours == original or writer_dropped(original, ours, row["version"]) is not None:
            continue
        if _list_read_as_text(original, ours, row["version"]):
            # The text is kept; the report says it may have been the list, and holds it.
            assert RecoveryKind.AMBIGUOUS in lost
            assert others[LISTS][index]["content"] == original["content"]
            assert any("text or a list" in unkept for unkept in decoded.unkept)
            continue
        # Anything else must be an empty turn written as a bare role, named as lost.
        assert original.get("content") in (None, "") and ours["content"] == "", (original, ours)
        assert RecoveryKind.BARE_ROLE in lost
        assert any("None or ''" in unkept for unkept in decoded.unkept)


def test_list_content_is_text_in_every_version_that_wrote_it_so(engine: Engine) -> None:
    listed = {row_id(row) for row in SINGLE
              if LISTS in {c.reading for c in handoff_codec.decode(
                  row["summary"]["content"], engine=engine).candidates}}
    assert listed == {f"{version}-single-{case}" for version in ("0.6.0", "0.10.5", "0.14.8",
                                                                 "0.17.0")
                      for case in ("list_content", "responses_api_message_shape")}


@pytest.mark.parametrize("row", NESTED, ids=row_id)
def test_every_record_of_a_second_hop_summary_is_read(row: dict[str, Any],
                                                      engine: Engine) -> None:
    """Old readers dropped turns in the first hop; what the writer then wrote is all read,
    as the reading or, for a record that would raise the authority of text (0.6's own
    reader turned a quoted summary into `3. system: ...`), as the reported candidate."""
    content = row["summary"]["content"]
    decoded = handoff_codec.decode(content, engine=engine)
    assert decoded.complete
    if len(decoded.items) != records_written(content):
        assert RecoveryKind.AMBIGUOUS in {recovery.kind for recovery in decoded.recoveries}
        assert any(len(candidate.items) == records_written(content)
                   for candidate in decoded.candidates)


def test_the_sdk_reader_loses_turns_that_we_recover() -> None:
    """The control: the fixtures do hold turns that the newest SDK reader drops."""
    from tests.support.sdk import sdk_read

    dropped = [
        row_id(row)
        for row in SINGLE
        if len(sdk_read(row["summary"]) or []) != len(row["transcript"])
    ]
    assert dropped


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_the_writers_named_never_rule_out_the_writer(row: dict[str, Any],
                                                     engine: Engine) -> None:
    """``writers`` names the release's generation among those the text allows, with what
    they cannot hold; ``format`` is ``current`` only for text in the current format (which
    every writer writes for some transcripts), else the generation's when it is the only
    one left, else ``legacy``."""
    text = row["summary"]["content"]
    decoded = handoff_codec.decode(text, engine=engine)
    if decoded.format is Format.CURRENT and not decoded.writers:
        assert list(decoded.recoveries) == [] and decoded.unkept == ()
        if RAW_BREAK.search(text) is not None:
            # Written raw by every release, read as the text leniently; no record of the
            # current format holds it, so a strict reader refuses it where it is.
            with pytest.raises(handoff_codec.DecodeError) as refused:
                handoff_codec.loads(text, strict=True, engine=engine)
            assert refused.value.pos == RAW_BREAK.search(text).start()  # type: ignore[union-attr]
            return
        handoff_codec.loads(text, strict=True, engine=engine)
        return
    assert generation(row["version"]) in decoded.writers and decoded.unkept
    if len(decoded.writers) > 1:
        assert decoded.format is Format.LEGACY
    else:
        assert decoded.format is {GENERATIONS["0.6"]: Format.LEGACY_0_6,
                                  GENERATIONS["0.17.1"]: Format.LEGACY_0_17_1,
                                  GENERATIONS["0.20"]: Format.CURRENT}[decoded.writers[0]]
