"""The integrations never raise in the handoff path: every fallback, its report, its warning.

Each test runs both integrations, ``make_history_mapper`` and
``nest_input_filter``, on real ``agents.handoffs.HandoffInputData``, and reads
what they wrote back with the SDK's own reader where the SDK would read it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

agents = pytest.importorskip("agents")

from agents import RunConfig  # noqa: E402
from agents.handoffs import (  # noqa: E402
    reset_conversation_history_wrappers,
    set_conversation_history_wrappers,
)
from agents.handoffs.history import default_handoff_history_mapper  # noqa: E402

import handoff_codec  # noqa: E402
from handoff_codec import Codec, EncodeError  # noqa: E402
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START  # noqa: E402
from handoff_codec.integrations.openai_agents import (  # noqa: E402
    FallbackKind,
    HandoffReport,
    make_history_mapper,
    nest_input_filter,
)
from tests.integrations.openai_agents._handoffs import (  # noqa: E402
    INTEGRATIONS,
    Item,
    Nest,
    via_filter,
    via_mapper,
)
from tests.integrations.openai_agents._one_handoff import last_agent_input  # noqa: E402
from tests.support.sdk import sdk_flatten  # noqa: E402


class Opaque:
    """A value with no JSON form; the SDK writes ``str(value)``."""

    def __str__(self) -> str:
        return "<opaque 42>"


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "handoff_codec"]


def _summaries(items: list[Item]) -> list[str]:
    return [i["content"] for i in items if handoff_codec.format.default_codec.is_summary(i)]


# ------------------------------------------------------------ 1: values that are not JSON
def test_core_dumps_stays_strict() -> None:
    with pytest.raises(EncodeError):
        handoff_codec.dumps([{"role": "user", "content": Opaque()}])


def test_unserializable_value_is_written_as_str_like_the_sdk(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": Opaque()}, {"role": "assistant", "content": "ok"}]
    out = integration(None, reports)(items)
    assert sdk_flatten(out) == [{"role": "user", "content": "<opaque 42>"},
                                {"role": "assistant", "content": "ok"}]
    assert sdk_flatten(default_handoff_history_mapper(items)) == sdk_flatten(out)  # type: ignore[arg-type]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.STRINGIFIED, 0)]
    assert report.degraded
    assert len(_warned(warnings)) == 1 and "stringified: 1" in _warned(warnings)[0]


def test_a_clean_handoff_reports_nothing_and_warns_nothing(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    out = integration(None, reports)([{"role": "user", "content": "hi"}])
    assert handoff_codec.flatten(out) == [{"role": "user", "content": "hi"}]
    assert reports == [HandoffReport(1, ())]
    assert _warned(warnings) == []


# ------------------------------------------------------------ 2: limits and media
def test_item_alone_over_max_bytes_is_forwarded_verbatim(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    big = {"type": "function_call_output", "call_id": "c1", "output": "x" * 5000}
    items = [{"role": "user", "content": "a"}, big, {"role": "assistant", "content": "b"}]
    out = integration(Codec(max_bytes=2000), reports)(items)
    assert out[1] == big
    assert handoff_codec.flatten(out) == items
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.FORWARDED]
    assert len(_warned(warnings)) == 1


def test_a_forwarded_item_carries_str_for_values_that_are_not_json(
    integration: Callable[..., Nest]
) -> None:
    reports: list[HandoffReport] = []
    big = {"role": "user", "content": "x" * 5000, "tag": Opaque()}
    out = integration(Codec(max_bytes=2000), reports)([big])
    assert out[-1] == {"role": "user", "content": "x" * 5000, "tag": "<opaque 42>"}
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.STRINGIFIED,
                                                     FallbackKind.FORWARDED]


def test_item_deeper_than_max_depth_is_forwarded_verbatim(
    integration: Callable[..., Nest]
) -> None:
    reports: list[HandoffReport] = []
    deep: Any = "leaf"
    for _ in range(10):
        deep = [deep]
    item = {"role": "user", "content": deep}
    out = integration(Codec(max_depth=5), reports)([item])
    assert item in out
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.FORWARDED]


def test_nan_never_aborts_the_handoff(integration: Callable[..., Nest]) -> None:
    reports: list[HandoffReport] = []
    out = integration(None, reports)([{"role": "user", "content": "x", "score": float("nan")}])
    (back,) = handoff_codec.flatten(out)
    assert back["content"] == "x" and back["score"] != back["score"]


def test_summary_over_max_records_is_split(integration: Callable[..., Nest]) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": str(n)} for n in range(7)]
    codec = Codec(max_records=3)
    out = integration(codec, reports)(items)
    assert [len(codec.loads(m["content"])) for m in out] == [3, 3, 1]
    assert handoff_codec.flatten(out) == items
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.SPLIT] * 2


def _image(size: int) -> str:
    return "data:image/png;base64," + "A" * size


def _with_image(text: str, size: int) -> Item:
    return {"role": "user", "content": [{"type": "input_text", "text": text},
                                        {"type": "input_image", "image_url": _image(size)}]}


def test_a_33_mib_image_is_forwarded_and_the_summary_holds_a_reference(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    photo = _with_image("what is this?", 33 * 1024 * 1024)
    items = [{"role": "user", "content": "hi"}, photo, {"role": "assistant", "content": "a cat"}]
    out = integration(None, reports)(items)
    assert [m is photo or m == photo for m in out] == [False, True, False]
    summaries = _summaries(out)
    assert all(len(s) < 500 and "AAAA" not in s for s in summaries)
    reference = handoff_codec.loads(summaries[0])[1]
    assert reference == {"role": "user", "content": "(image forwarded as item 2)",
                         "forwarded_sha256": reference["forwarded_sha256"]}
    assert re.fullmatch("[0-9a-f]{16}", reference["forwarded_sha256"])
    # Read back (by us, and by the SDK), the conversation is all there, in order.
    assert [i for i in handoff_codec.flatten(out) if "forwarded as item" not in str(
        i["content"])] == items
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.MEDIA]
    assert not reports[0].degraded and _warned(warnings) == []


def test_media_references_of_an_earlier_handoff_are_not_repeated(
    integration: Callable[..., Nest]
) -> None:
    reports: list[HandoffReport] = []
    nest = integration(None, reports)
    items = [_with_image("one", 10), {"role": "assistant", "content": "x"},
             {"type": "message", "role": "user",
              "content": [{"type": "input_file", "file_id": "file-1"}]}]
    once = nest(items)
    twice = nest(once)
    assert twice == once
    assert [f.detail for f in reports[-1].fallbacks] == [
        "(image forwarded as item 2)", "(file forwarded as item 4)"]


REFERENCE_TEXT = "(image forwarded as item 2)"


def test_a_users_words_that_read_like_a_reference_are_kept(
    integration: Callable[..., Nest]
) -> None:
    """Only the references a handoff wrote are dropped, known by the item they stand for."""
    nest = integration(None, [])
    said = {"role": "user", "content": REFERENCE_TEXT}
    hi = {"role": "user", "content": "hi"}
    photo = _with_image("one", 10)
    # A message of the history: alone, right before an image, or after one.
    for history in ([said], [hi, said, photo], [photo, said]):
        once = nest(history)
        assert [i for i in handoff_codec.flatten(once) if i == said] == [said]
        assert nest(once) == once  # and on every later hop
    # Inside an earlier summary, right before an image.
    earlier = [handoff_codec.format.summarize([hi, said]), photo]
    assert said in handoff_codec.flatten(nest(earlier))


def test_our_own_reference_is_dropped_where_its_media_follows_it(
    integration: Callable[..., Nest]
) -> None:
    nest = integration(None, [])
    photo = _with_image("one", 10)
    once = nest([{"role": "user", "content": "hi"}, photo])
    assert [m is photo or m == photo for m in once] == [False, True]
    reference = handoff_codec.loads(once[0]["content"])[-1]
    assert reference["content"] == REFERENCE_TEXT
    assert nest(once) == once  # our reference, followed by its image: not repeated
    # Its summary without the image after it, or before another image: a turn like any other.
    for history in (once[:1], [once[0], _with_image("two", 10)]):
        assert reference in handoff_codec.flatten(nest(history))


@pytest.mark.parametrize("mode", ["mapper", "filter"])
def test_in_a_run_each_image_has_one_reference_however_many_handoffs(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also with the mapper, which sees our summaries already expanded by the SDK's reader."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-offline-not-used")
    agents.set_tracing_disabled(True)
    config = (RunConfig(nest_handoff_history=True, handoff_history_mapper=make_history_mapper())
              if mode == "mapper" else RunConfig(handoff_input_filter=nest_input_filter()))
    said = {"role": "user", "content": REFERENCE_TEXT}
    opening = [said, _with_image("what is this?", 10)]
    received = handoff_codec.flatten(last_agent_input(config, opening, handoffs=3))
    assert [i for i in received if i == said] == [said]
    references = [i for i in received if "forwarded_sha256" in i]
    assert len(references) == 1 and references[0]["content"].startswith("(image forwarded")
    assert sum(i == opening[1] for i in received) == 1


def test_sdk_writes_base64_into_the_summary_text() -> None:
    """The SDK's writer, for contrast: the image's bytes become text of the summary."""
    (summary,) = default_handoff_history_mapper([_with_image("x", 3000)])  # type: ignore[list-item]
    assert "A" * 3000 in str(summary["content"])  # type: ignore[index]


# ------------------------------------------------------------ 3: the SDK's wrappers
@pytest.fixture
def custom_wrappers() -> Iterator[None]:
    set_conversation_history_wrappers(start="<<START>>", end="<<END>>")
    yield
    reset_conversation_history_wrappers()


def test_the_sdk_wrappers_are_followed_at_call_time(
    integration: Callable[..., Nest], custom_wrappers: None
) -> None:
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    out = integration(None, [])(items)
    assert out[0]["content"].split("\n")[1:3] == ["<<START>>", "1. user: hi"]
    assert sdk_flatten(out) == items
    reset_conversation_history_wrappers()
    assert integration(None, [])(items)[0]["content"].split("\n")[1] == "<CONVERSATION HISTORY>"


def test_an_explicit_codec_wins_over_the_sdk_wrappers(
    integration: Callable[..., Nest], custom_wrappers: None
) -> None:
    out = integration(Codec(start="[[", end="]]"), [])([{"role": "user", "content": "hi"}])
    assert out[0]["content"].split("\n")[1] == "[["


MULTI_LINE = ("<H>\n<X>", "</X>\n</H>")


@pytest.fixture
def multi_line_wrappers() -> Iterator[None]:
    set_conversation_history_wrappers(start=MULTI_LINE[0], end=MULTI_LINE[1])
    yield
    reset_conversation_history_wrappers()


def test_wrappers_with_a_line_break_are_followed(
    integration: Callable[..., Nest], multi_line_wrappers: None,
    warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    nest = integration(None, reports)
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a\nb"}]
    out = nest(items)
    (summary,) = out
    assert summary["content"].startswith(
        f"{DEFAULT_PREAMBLE}\n<H>\n<X>\n1. user: hi\n")
    assert summary["content"].endswith("\n</X>\n</H>")
    # The SDK, under the same setting, writes that envelope too and reads ours exactly.
    sdk_summary = default_handoff_history_mapper(items)[0]  # type: ignore[arg-type]
    assert str(sdk_summary["content"]).split("\n")[:3] == summary["content"].split("\n")[:3]  # type: ignore[index]
    assert sdk_flatten(out) == items
    assert nest(out) == out  # the next hop reads it back and writes the same
    assert reports == [HandoffReport(2, ()), HandoffReport(2, ())]
    assert _warned(warnings) == []


def test_signed_summaries_under_multi_line_wrappers_verify(
    integration: Callable[..., Nest], multi_line_wrappers: None
) -> None:
    codec = Codec(preamble=DEFAULT_PREAMBLE, start=MULTI_LINE[0],
                  end=MULTI_LINE[1], key=b"k" * 32)
    items = [{"role": "user", "content": "hi"}]
    reports: list[HandoffReport] = []
    # A mapper cannot check signatures (it is refused without trust="any").
    trust = {"trust": "any"} if integration is INTEGRATIONS["mapper"] else {}
    out = integration(codec, reports, **trust)([codec.summarize(items)])
    assert codec.verify(out[0]["content"]) and sdk_flatten(out) == items
    assert codec.flatten(out, trust="signed") == items and reports[0].untrusted == 0


@pytest.mark.parametrize(("start", "end"), [("", "</H>"), ("<H>", "1. user: x\n</H>")])
def test_wrappers_a_codec_cannot_hold_fall_back_with_a_warning_and_a_report(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture, start: str, end: str
) -> None:
    reports: list[HandoffReport] = []
    set_conversation_history_wrappers(start=start, end=end)
    try:
        out = integration(None, reports)([{"role": "user", "content": "hi"}])
    finally:
        reset_conversation_history_wrappers()
    assert handoff_codec.format.default_codec.is_summary(out[0])
    assert handoff_codec.flatten(out) == [{"role": "user", "content": "hi"}]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.WRAPPERS, -1)]
    assert repr(end) in report.fallbacks[0].detail
    assert report.degraded and len(_warned(warnings)) == 1
    assert "wrappers: 1" in _warned(warnings)[0]


# ------------------------------------------------------------ 5: summaries kept, not dropped
LOSSY = "\n".join((DEFAULT_PREAMBLE, DEFAULT_START, '1. {"content": "hi", "role": "user"}',
                   "2. what is this", "3. assistant: ok", DEFAULT_END))


def test_an_earlier_summary_that_would_lose_a_line_is_kept_whole(
    warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    lossy = {"role": "assistant", "content": LOSSY}
    out = via_filter(None, reports)([lossy, {"role": "user", "content": "next"}])
    assert handoff_codec.flatten(out) == [lossy, {"role": "user", "content": "next"}]
    assert [(f.kind, f.index) for f in reports[0].fallbacks] == [(FallbackKind.UNEXPANDED, 0)]
    assert "line(s) 4" in reports[0].fallbacks[0].detail
    assert len(_warned(warnings)) == 1


# ------------------------------------------------------------ the last resort
class _BrokenCodec(Codec):
    def summarize(self, items: Any) -> Item:
        raise RuntimeError("boom")


def test_an_internal_error_falls_back_to_the_sdk_nesting(
    integration: Callable[..., Nest], warnings: pytest.LogCaptureFixture
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": "hi"}]
    out = integration(_BrokenCodec(), reports)(items)
    assert sdk_flatten(out) == items
    assert [f.kind for f in reports[0].fallbacks] == [FallbackKind.INTERNAL_ERROR]
    assert "RuntimeError: boom" in reports[0].fallbacks[0].detail
    assert len(_warned(warnings)) == 1


def test_a_failing_report_callback_does_not_fail_the_handoff(
    caplog: pytest.LogCaptureFixture
) -> None:
    def callback(report: HandoffReport) -> None:
        raise ValueError("callback bug")

    mapper = make_history_mapper(on_report=callback)
    with caplog.at_level(logging.ERROR, logger="handoff_codec"):
        out = mapper([{"role": "user", "content": "hi"}])  # type: ignore[list-item]
    assert handoff_codec.flatten(out) == [{"role": "user", "content": "hi"}]  # type: ignore[arg-type]
    assert "on_report callback raised" in caplog.text


def test_reports_are_per_handoff_not_global() -> None:
    first: list[HandoffReport] = []
    second: list[HandoffReport] = []
    via_mapper(None, first)([{"role": "user", "content": Opaque()}])
    via_mapper(None, second)([{"role": "user", "content": "fine"}])
    assert [r.count(FallbackKind.STRINGIFIED) for r in first + second] == [1, 0]
