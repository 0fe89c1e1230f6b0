"""Hypothesis profiles: ``ci`` at full strength, ``dev`` (the default locally) lighter.

``CI=true`` selects ``ci``, which is derandomized: a CI run is reproducible, the
same examples each time (local runs and the fuzz job keep exploring at random).
``HYPOTHESIS_PROFILE`` overrides either way (``ci-tenth``: a tenth, derandomized). A
property test states its full-strength count with ``@examples(n)``: ``ci``
runs n examples, ``dev`` a tenth of them (at least 25).
"""

from __future__ import annotations

import os

from hypothesis import settings

__all__ = ["PROFILE", "examples"]

settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=25)
# A tenth, derandomized: the compiled wheel's run in CI, which the full-strength run of
# the same tests on pure Python has already covered.
settings.register_profile("ci-tenth", deadline=None, print_blob=True, derandomize=True,
                          max_examples=25)

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI") == "true" else "dev")


def examples(n: int) -> settings:
    """Settings for a property test worth ``n`` examples at full strength."""
    return settings(max_examples=n if PROFILE == "ci" else max(25, n // 10), deadline=None)
