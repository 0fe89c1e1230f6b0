"""An unreachable server skips its tests with one line, and fails them under CI=true."""

from __future__ import annotations

import pytest

from tests.support import services


@pytest.mark.parametrize("ci", ["", "true"])
def test_an_unreachable_server_skips_or_fails_under_ci(
        ci: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(services, "REDIS", "redis://127.0.0.1:1/0")
    monkeypatch.setattr(services, "POSTGRES", "postgresql://postgres@127.0.0.1:1/test")
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    for place in (services.redis_prefix, services.postgres_database):
        with pytest.raises(expected) as caught, place():
            pass
        message = str(caught.value)
        assert "not reachable" in message and "\n" not in message
