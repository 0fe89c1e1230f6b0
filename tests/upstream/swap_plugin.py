"""A pytest plugin that swaps handoff_codec into the Agents SDK's nesting.

Loaded by ``run.py`` into a run of the SDK's own test suite. The mode comes
from ``HANDOFF_CODEC_UPSTREAM_MODE``:

``mapper``
    ``handoff_codec.integrations.openai_agents.history_mapper`` writes every summary the SDK's
    default nesting writes: it replaces ``default_handoff_history_mapper``
    where ``agents.handoffs.history`` calls it for each summary segment. The
    SDK's split between summary and verbatim items, and its reader, stay.
``filter``
    Every nesting that has no history mapper of its own is done by
    ``handoff_codec.integrations.openai_agents.nest_input_filter()``, whose provenance
    declaration the Runner reads as it reads the SDK's. This goes through the
    function the SDK routes every nesting through,
    ``agents.handoffs.history._nest_handoff_history_with_provenance`` (also
    bound in ``agents.run_internal.turn_resolution``), so
    ``nest_handoff_history`` and ``RunConfig(nest_handoff_history=True)`` are
    both covered.

A test that calls ``default_handoff_history_mapper`` itself still gets the
SDK's.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

MODE_VARIABLE = "HANDOFF_CODEC_UPSTREAM_MODE"
RESULTS_VARIABLE = "HANDOFF_CODEC_UPSTREAM_RESULTS"  # a file for "outcome<TAB>node id" lines


def _swapped(original: Any) -> Any:
    from handoff_codec.integrations.openai_agents import nest_input_filter

    nest_filter = nest_input_filter()

    def nest_with_handoff_codec(data: Any, *, history_mapper: Any = None) -> Any:
        if history_mapper is not None:
            return original(data, history_mapper=history_mapper)
        nested = nest_filter(data)
        return nested, tuple(getattr(nested, "_nested_history_owned_items", ()))

    return nest_with_handoff_codec


def _replace(modules: tuple[Any, ...], name: str, value: Any) -> None:
    for module in modules:
        if not hasattr(module, name):
            raise pytest.UsageError(f"{module.__name__}.{name} is gone: update swap_plugin.py")
        setattr(module, name, value)


def pytest_configure(config: pytest.Config) -> None:
    mode = os.environ.get(MODE_VARIABLE, "")
    if mode not in ("mapper", "filter"):
        raise pytest.UsageError(f"{MODE_VARIABLE} must be 'mapper' or 'filter', not {mode!r}")
    import agents.handoffs.history as history
    import agents.run_internal.turn_resolution as turn_resolution

    if mode == "mapper":
        from handoff_codec.integrations.openai_agents import history_mapper

        _replace((history,), "default_handoff_history_mapper", history_mapper)
    else:
        name = "_nest_handoff_history_with_provenance"
        _replace((history, turn_resolution), name, _swapped(getattr(history, name)))


def pytest_report_header(config: pytest.Config) -> str:
    return f"handoff_codec swapped into the SDK's nesting as its {os.environ.get(MODE_VARIABLE)}"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    results = os.environ.get(RESULTS_VARIABLE)
    if not results or not (report.when == "call" or report.outcome != "passed"):
        return
    with open(results, "a", encoding="utf-8") as file:
        file.write(f"{report.outcome}\t{report.nodeid}\n")
