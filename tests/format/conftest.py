"""The ``engine`` fixture: every reading test runs on both of ``loads``' and ``decode``'s engines.

The fast engine and the Lark reference (``engine="lark"``) must read every
text alike, so each test that reads takes ``engine`` and passes it on, as
CPython's test_json runs each test on the C and on the Python scanner.
Session-scoped, so that Hypothesis tests can take it too.
"""

from __future__ import annotations

import pytest

from tests.format.read.summaries import ENGINES, Engine


@pytest.fixture(params=ENGINES, scope="session")
def engine(request: pytest.FixtureRequest) -> Engine:
    """``"fast"``, then ``"lark"``."""
    value: Engine = request.param
    return value
