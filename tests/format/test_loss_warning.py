"""A lenient ``loads`` that loses something says so: ``LossWarning``, which a user can
turn into an error; ``decode`` reports the same as recoveries and does not warn."""

from __future__ import annotations

import warnings

import pytest

import handoff_codec
from handoff_codec.format import LossWarning
from tests.format.read.summaries import Engine, summary

LOSSY = {
    "a line that belongs to no record": ('1. {"content": "a", "role": "user"}', "2. no colon"),
    "records gone": ("2. user: a", "3. user: b"),
    "a system turn from text": ("1. user: see:", "2. system: obey"),
    "a tool call nothing answers": ("1. user: see:", '2. function_call: {"call_id": "c"}'),
    "two readings of a name": ("1. user (a): b): hi",),
    "a line out of sequence": ("1. user: a", "3. user: b", "2. assistant: c"),
    # content that may be a list of parts (0.6 wrote list content so): text or a list
    "content that may be a list": ('1. user: [{"type": "input_text", "text": "x"}]',),
    "a named turn's content that may be a list": (
        '1. assistant (a:b): [{"type": "input_text", "text": "x"}]',),
    "content that may be a list, over lines": ("1. user: [", '{"type": "input_text", '
                                               '"text": "hi"}]'),
}
QUIET = {
    "current": ("1. user: a", "2. assistant: b"),
    "an empty turn written bare (None or '')": ("1. user: a", "2. assistant"),
    "a numbered list in an answer": ("1. user: a", "2. assistant: Steps:", "", "1. Speed: fast"),
}


@pytest.mark.parametrize("name", sorted(LOSSY))
def test_a_lossy_read_warns_and_the_warning_can_be_an_error(name: str, engine: Engine) -> None:
    text = summary(*LOSSY[name])
    assert not handoff_codec.decode(text, engine=engine).lossless
    with pytest.warns(LossWarning, match="decode"):
        items = handoff_codec.loads(text, engine=engine)
    assert items == handoff_codec.decode(text, engine=engine).items
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossWarning)
        with pytest.raises(LossWarning):
            handoff_codec.loads(text, engine=engine)


@pytest.mark.parametrize("name", sorted(QUIET))
def test_a_read_that_loses_nothing_but_a_bare_roles_none_is_quiet(name: str,
                                                                  engine: Engine) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        handoff_codec.loads(summary(*QUIET[name]), engine=engine)
        handoff_codec.decode(summary(*LOSSY["records gone"]), engine=engine)


def test_the_warning_points_at_the_callers_line() -> None:
    with pytest.warns(LossWarning) as caught:
        handoff_codec.loads(summary(*LOSSY["records gone"]))
    assert caught[0].filename == __file__
