"""Shared test setup: the Hypothesis profile (see tests/support/profiles.py)."""

from hypothesis import settings

from tests.support.profiles import PROFILE

settings.load_profile(PROFILE)
