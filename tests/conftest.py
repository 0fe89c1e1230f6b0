"""Shared test setup: the Hypothesis profile (see tests/support/profiles.py), and which
build of handoff_codec the run imports (see tests/format/test_build.py)."""

from hypothesis import settings

from tests.support.profiles import PROFILE

settings.load_profile(PROFILE)


def pytest_report_header() -> str:
    import handoff_codec
    from handoff_codec._build import compiled  # private: which build, not API

    build = "reader compiled with mypyc" if compiled() else "pure Python"
    return f"handoff_codec: {build}, from {handoff_codec.__file__}"
