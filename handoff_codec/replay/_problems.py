"""What replay reports: one :class:`Problem` type and one ``Severity`` for every check."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Problem", "Severity"]

Severity = Literal["error", "warning", "info"]
"""How bad a :class:`Problem` is: an ``error`` fails ``validate``, the others do not."""


class Problem(BaseModel):
    """One finding. ``index`` is the position of the item it concerns (None: all)."""

    model_config = ConfigDict(frozen=True)

    index: int | None
    code: str
    message: str
    severity: Severity = "error"
