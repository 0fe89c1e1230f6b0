"""Every framework module's ``dumps`` and ``loads``: one warning on the ``handoff_codec`` logger
exactly when its report (``encode``, ``read``) says something was left out, and the same
result as the report's (messages compared by what they hold: ids and times are new on each
read)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import handoff_codec
from tests.integrations._pairs import FRAMEWORKS, MODULES, Call, Turn, build, view

# A key no framework module writes, on the first item: every module leaves it out.
FOREIGN = handoff_codec.dumps([{"role": "user", "content": "hi", "x_other": 1},
                               {"role": "assistant", "content": "ok"}])
CLEAN = handoff_codec.dumps([{"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "ok"}])
TURNS = [Turn("user", parts=[("text", "Where is A1?")]),
         Turn("assistant", calls=[Call("c1", "lookup", {"order": "A1"})]),
         Turn("results", results=[("c1", "lookup", "shipped")]),
         Turn("assistant", parts=[("text", "A1 is shipped.")])]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "handoff_codec" and record.levelno == logging.WARNING]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_loads_warns_once_naming_what_it_left_out(framework: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    module: Any = MODULES[framework]
    back = module.read(FOREIGN)
    assert "x_other" in {omission.field for omission in back.omitted}
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        messages = module.loads(FOREIGN)
    (warning,) = _warnings(caplog)
    assert "read from a summary without" in warning and "x_other" in warning
    assert f"({len(back.omitted)} omission(s))" in warning
    assert view[framework](messages) == view[framework](back.messages)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_nothing_left_out_warns_nothing(framework: str,
                                        caplog: pytest.LogCaptureFixture) -> None:
    module: Any = MODULES[framework]
    native = build[framework](TURNS)
    encoded = module.encode(native)
    assert encoded.omitted == () and module.read(CLEAN).omitted == ()
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        text = module.dumps(native)
        messages = module.loads(CLEAN)
    assert _warnings(caplog) == []
    assert text == encoded.text
    assert view[framework](messages) == view[framework](module.read(CLEAN).messages)
