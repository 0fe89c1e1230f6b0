"""The replay error: an item that cannot be converted for a target."""

from __future__ import annotations

from typing import Any

__all__ = ["ReplayError"]


class ReplayError(ValueError):
    """An item cannot be converted for the target: ``index`` says which."""

    def __init__(self, msg: str, *, index: int) -> None:
        super().__init__(f"item {index}: {msg}")
        self.msg = msg
        self.index = index

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replay_error, (self.msg, self.index))


def _replay_error(msg: str, index: int) -> ReplayError:
    return ReplayError(msg, index=index)
