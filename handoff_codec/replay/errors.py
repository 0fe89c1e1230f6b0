"""The replay error: items that cannot be converted for a target."""

from __future__ import annotations

from typing import Any

__all__ = ["ReplayError"]


class ReplayError(ValueError):
    """The items cannot be converted for the target.

    ``index`` says which item (None: the items as a whole, such as a request
    with no turn); ``code`` names the reason as ``validate`` reports it.
    """

    def __init__(self, msg: str, *, index: int | None, code: str = "cannot-replay") -> None:
        super().__init__(msg if index is None else f"item {index}: {msg}")
        self.msg = msg
        self.index = index
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replay_error, (self.msg, self.index, self.code))


def _replay_error(msg: str, index: int | None, code: str = "cannot-replay") -> ReplayError:
    return ReplayError(msg, index=index, code=code)
