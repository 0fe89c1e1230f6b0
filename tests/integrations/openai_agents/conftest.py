"""Fixtures of the handoff tests: each integration in turn, and the codec's warnings."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from tests.integrations.openai_agents._handoffs import INTEGRATIONS, Nest


@pytest.fixture(params=sorted(INTEGRATIONS))
def integration(request: pytest.FixtureRequest) -> Callable[..., Nest]:
    """``via_mapper`` or ``via_filter``: call it as ``integration(codec, reports, **kw)``."""
    return INTEGRATIONS[request.param]


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """``caplog``, capturing the ``handoff_codec`` logger's warnings."""
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        yield caplog
