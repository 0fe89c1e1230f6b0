"""Both integrations, each as a function from a history to what the next agent gets.

``via_mapper`` runs ``make_history_mapper``, ``via_filter`` runs
``nest_input_filter`` on a real ``agents.handoffs.HandoffInputData``; each takes
the codec (``None`` for the default), the list its reports go to, and any other
keyword the integration takes (``trust=...``). ``agents`` is imported only when
one is made, so that conftest.py can name them where openai-agents is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from handoff_codec import Codec
    from handoff_codec.integrations.openai_agents import HandoffReport

__all__ = ["INTEGRATIONS", "Item", "Nest", "via_filter", "via_mapper"]

Item = dict[str, Any]
Nest = Callable[[list[Item]], list[Item]]


def via_mapper(codec: Codec | None, reports: list[HandoffReport], **kw: Any) -> Nest:
    from handoff_codec.integrations.openai_agents import make_history_mapper

    mapper = make_history_mapper(codec, on_report=reports.append, **kw)
    return lambda items: [dict(i) for i in mapper(items)]  # type: ignore[arg-type]


def via_filter(codec: Codec | None, reports: list[HandoffReport], **kw: Any) -> Nest:
    from agents.handoffs import HandoffInputData

    from handoff_codec.integrations.openai_agents import nest_input_filter

    nest = nest_input_filter(codec, on_report=reports.append, **kw)

    def run(items: list[Item]) -> list[Item]:
        data = HandoffInputData(input_history=tuple(items), pre_handoff_items=(), new_items=())
        return [dict(i) for i in nest(data).input_history]  # type: ignore[arg-type]

    return run


INTEGRATIONS: dict[str, Callable[..., Nest]] = {"mapper": via_mapper, "filter": via_filter}
