"""One message the codec cannot write costs that message, never the request's records.

A message whose records or text the codec refuses (arguments nested deeper
than ``max_depth``, a surrogate pair as two code points), from a client's input
or in the sender's own response: the next model is still sent every other
turn's calls and results in the summary, that message as the framework hands
it on (its text; its calls and results left out together), and one warning.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Content, Message

from tests.integrations.agent_framework._workflows import (
    build_workflow,
    contents,
    quiet,
    seen,
    unpaired_calls,
)

PAIR = "\ud83d\ude00"  # U+1F600 as two code points


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


def _scripts(result_text: str) -> dict[str, list[Message]]:
    return {"a": [Message("assistant", [Content.from_text("Looking."), Content.from_function_call(
                      "t1", "lookup_order", arguments={"order_id": 42})]),
                  Message("assistant", [Content.from_text(f"Found: {result_text}"),
                                        Content.from_function_call("h1", "handoff_to_b")])],
            "b": [Message("assistant", ["Billing here."])], "c": []}


# name -> (a client's extra input message or None, what A's second reply says)
CASES: dict[str, tuple[Message | None, str]] = {
    "client's call nested too deep": (Message("assistant", [
        Content.from_text("Earlier, c said this."),
        Content.from_function_call("z", "noop", arguments=_deep(250))], author_name="c"), "ok"),
    "client's text with a surrogate pair": (Message(
        "assistant", [f"Earlier, c said {PAIR}."], author_name="c"), "ok"),
    "sender's own text with a surrogate pair": (None, f"charged {PAIR}"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_message_the_codec_refuses_costs_only_that_message(
        case: str, caplog: pytest.LogCaptureFixture) -> None:
    extra, said = CASES[case]
    workflow, clients = build_workflow([quiet()], _scripts(said))
    first = [Message("user", ["Order 42?"]), *([extra] if extra else [])]
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        asyncio.run(workflow.run(first))
    (request,) = clients["b"].requests
    read = seen(request)
    assert unpaired_calls(read) == []
    assert "t1" in [c.call_id for c in contents(read, "function_call")]
    assert "z" not in [c.call_id for c in contents(read, "function_call")]
    texts = [m.text for m in read]
    assert any("Earlier, c said" in t for t in texts) or extra is None
    assert any(t.startswith("Found: ") for t in texts)
    assert [r for r in caplog.records if "could not be written" in r.getMessage()]
    assert not [r for r in caplog.records if "as the framework built it" in r.getMessage()]
