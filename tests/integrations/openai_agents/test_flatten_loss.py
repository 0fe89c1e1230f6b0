"""``flatten`` never drops text silently, and agrees with the migration.

``on_loss="keep"`` (the default) leaves a summary unexpanded when reading it
would leave a line out of every item; ``"drop"`` expands it as the Agents
SDK's reader does. ``flatten_report`` gives each summary message's decision
with the reader's recoveries.
"""

from __future__ import annotations

from typing import Any

import pytest

import handoff_codec
from handoff_codec import Codec
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, Reason, default_codec
from handoff_codec.migrate import MigrationStatus, migrate_items

P, S, E = DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END
Item = dict[str, Any]


def _summary(*records: str, preamble: str = P) -> Item:
    return {"role": "assistant", "content": "\n".join((preamble, S, *records, E))}


# "2. what is this" is numbered but is no record (after a first record only a writer that
# escapes line breaks writes): a reader can only drop it.
LOSSY = _summary('1. {"content": "hi", "role": "user"}', "2. what is this", "3. assistant: ok")
CLEAN = {"role": "assistant", "content": handoff_codec.dumps([{"role": "user", "content": "hi"}])}
LEGACY = _summary("1. user: hi", preamble=handoff_codec.format.LEGACY_PREAMBLE)
# Record 2 redacted, as the SDK's docs advise for sensitive turns.
REDACTED = _summary("1. user: my card is 4111", "3. user: refund please", "4. assistant: done")


def test_keep_leaves_a_summary_that_would_lose_a_line_unexpanded() -> None:
    turn = {"role": "user", "content": "next"}
    flat = handoff_codec.flatten([LOSSY, turn])
    assert flat == [LOSSY, turn]
    assert flat[0] is not LOSSY  # a new list of copies


def test_drop_reads_it_like_the_sdk() -> None:
    assert handoff_codec.flatten([LOSSY], on_loss="drop") == [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]


def test_flatten_report_says_what_happened_to_each_summary() -> None:
    report = default_codec.flatten_report([CLEAN, {"role": "user"}, LOSSY, LEGACY])
    decisions = {d.index: d for d in report.decisions}
    assert sorted(decisions) == [0, 2, 3]
    assert (decisions[0].expanded, decisions[0].reason, decisions[0].recoveries) == (
        True, Reason.EXPANDED, ())
    assert (decisions[2].expanded, decisions[2].reason) == (False, Reason.LOSSY)
    assert decisions[2].detail == "line(s) 4 belong to no record"
    assert [r.kind.value for r in decisions[2].recoveries] == ["unrecognised"]
    assert decisions[3].expanded
    assert [r.kind.value for r in decisions[3].recoveries] == ["legacy_preamble"]
    assert report.kept == [decisions[2]]


def test_a_redacted_summary_is_never_folded_silently() -> None:
    """Whatever the lenient reader makes of a gap in the numbering, it reports it."""
    (decision,) = default_codec.flatten_report([REDACTED]).decisions
    assert decision.recoveries, "a read beyond the current format must be reported"


def test_unknown_on_loss_is_refused() -> None:
    with pytest.raises(ValueError, match="on_loss"):
        handoff_codec.flatten([LOSSY], on_loss="ignore")  # type: ignore[arg-type]


@pytest.mark.parametrize("message", [LOSSY, CLEAN, LEGACY, REDACTED,
                                     _summary("1. user", "2. assistant: x")])
def test_flatten_and_the_migration_agree(message: Item) -> None:
    """A summary the migration leaves untouched is exactly one flatten keeps whole."""
    (result,) = migrate_items([message])
    (decision,) = default_codec.flatten_report([message]).decisions
    assert (result.status is MigrationStatus.UNTOUCHED) == (not decision.expanded)
    assert list(result.recoveries) == list(decision.recoveries)


def test_flatten_applies_the_codec_limits_and_keeps_what_it_cannot_read() -> None:
    message = _summary("1. user: hi", "2. user: there")
    report = Codec(max_records=1).flatten_report([message])
    assert report.items == [message]
    assert report.decisions[0].reason is Reason.UNREADABLE
