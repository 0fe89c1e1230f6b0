"""The import graph of ``handoff_codec.replay``, recorded while the package runs.

``python -m tests.replay.import_graph`` prints one line per edge (a module of
``replay/`` that imports another one), every cycle, and every underscored name
one module imports from another; ``--json`` prints the same as one document.

The graph is recorded, not read from the source: a wrapper around
``builtins.__import__`` notes each import statement as it runs, top-level and
inside functions alike, while every module is imported and every public
function is called for every target. The package ``__init__`` is left out:
each submodule imports it implicitly, and it imports them lazily on demand.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.util
import json
import pkgutil
import sys
from collections.abc import Mapping, Sequence
from typing import Any

PACKAGE = "handoff_codec.replay"
Edge = tuple[str, str]


class Recorder:
    """Wraps ``builtins.__import__`` and notes who imports what inside ``PACKAGE``."""

    def __init__(self) -> None:
        self.edges: set[Edge] = set()
        self.private: set[tuple[str, str, str]] = set()  # (importer, module, name)
        self._original = builtins.__import__

    def __enter__(self) -> Recorder:
        builtins.__import__ = self._import
        return self

    def __exit__(self, *exc: object) -> None:
        builtins.__import__ = self._original

    def _import(self, name: str, globals: Mapping[str, Any] | None = None,
                locals: Mapping[str, Any] | None = None, fromlist: Sequence[str] | None = (),
                level: int = 0) -> Any:
        module = self._original(name, globals, locals, fromlist, level)
        importer = (globals or {}).get("__name__", "")
        if _inside(importer):
            package = (globals or {}).get("__package__") or importer.rpartition(".")[0]
            target = importlib.util.resolve_name("." * level + name, package) if level else name
            self._note(importer, target, fromlist or ())
        return module

    def _note(self, importer: str, target: str, fromlist: Sequence[str]) -> None:
        for name in fromlist:
            submodule = f"{target}.{name}"
            if submodule in sys.modules and _inside(submodule):
                self.edges.add((importer, submodule))
            elif _inside(target) and name.startswith("_") and not name.startswith("__"):
                self.private.add((importer, target, name))
        if _inside(target) and (not fromlist or not all(
                f"{target}.{name}" in sys.modules for name in fromlist)):
            self.edges.add((importer, target))
        self.edges.discard((importer, importer))


def _inside(module: str) -> bool:
    return module.startswith(PACKAGE + ".")


def _exercise() -> None:
    """Import every module of the package and call every public function for every target."""
    replay = importlib.import_module(PACKAGE)
    for info in pkgutil.iter_modules(replay.__path__):
        importlib.import_module(f"{PACKAGE}.{info.name}")
    png = "data:image/png;base64,iVBORw0KGgo="
    items: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "name": "amy", "content": [
            {"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": png}]},
        {"role": "assistant", "name": "bot", "content": None},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": ""},
        {"type": "reasoning", "id": "r", "summary": []},
        {"role": "assistant", "content": "done"},
    ]
    for target in replay.PROVIDERS:
        for given in (items, replay.replayable(items, target="chat_completions")):
            with contextlib.suppress(ValueError):  # ReplayError: its imports have run
                replay.to_provider(given, target)
    for target in replay.TARGETS:
        replay.validate(items, target=target)
        replay.validate(replay.replayable(items, target=target), target=target)
        replay.replayable(items, target=target, names="inline")
        replay.sanitize([{"role": "user", "content": ""}], target=target)
    replay.restore_empty(replay.replayable(items, target="anthropic"))
    replay.restore_empty_report(items)
    replay.to_chat_messages([{"role": "user", "content": "hi"}])
    replay.empty.classify_turn(stop_reason="end_turn", usage={"output_tokens": 0}, body="")


def cycles(edges: set[Edge]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for source, target in sorted(edges):
        graph.setdefault(source, []).append(target)
        graph.setdefault(target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for child in graph[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return sorted(found)


def record() -> dict[str, Any]:
    """The graph: ``edges``, ``cycles`` and ``private`` (underscored names imported)."""
    with Recorder() as recorder:
        _exercise()
    short = len(PACKAGE) + 1
    return {
        "edges": sorted([a[short:], b[short:]] for a, b in recorder.edges),
        "cycles": [[m[short:] for m in c] for c in cycles(recorder.edges)],
        "private": sorted([a[short:], b[short:], n] for a, b, n in recorder.private),
    }


def main(argv: Sequence[str]) -> int:
    graph = record()
    if "--json" in argv:
        print(json.dumps(graph))
        return 0
    for source, target in graph["edges"]:
        print(f"{source} -> {target}")
    for cycle in graph["cycles"]:
        print(f"cycle: {' <-> '.join(cycle)}")
    for importer, module, name in graph["private"]:
        print(f"private: {importer} imports {name} from {module}")
    print(f"{len(graph['edges'])} edges, {len(graph['cycles'])} cycles, "
          f"{len(graph['private'])} private names imported")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
