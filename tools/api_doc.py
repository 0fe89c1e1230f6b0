"""Writes ``docs/api.md``, every public name with its docstring, from the package itself.

    python tools/api_doc.py          # rewrite docs/api.md
    python tools/api_doc.py --check  # exit 1 if it is out of date

The public names of a module are its ``__all__``; the public modules are
listed in :data:`PUBLIC_MODULES`. A name's text is its own docstring (a
module's, a class's or a function's), or, for a value (a constant, a type
alias, a ready-made object), the string literal that follows its assignment
in the module that defines it. ``tests/test_public_api.py`` fails when the
file is not current or a name has no text. Importing the integrations imports
their frameworks: run it in the ``dev`` install.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import pkgutil
import sys
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "api.md"
PACKAGE = "handoff_codec"

# The modules whose __all__ is the API, in the order docs/api.md gives them.
PUBLIC_MODULES = (
    "handoff_codec",
    "handoff_codec.format",
    "handoff_codec.replay",
    "handoff_codec.replay.empty",
    "handoff_codec.replay.errors",
    "handoff_codec.migrate",
    "handoff_codec.migrate.stores",
    "handoff_codec.integrations",
    "handoff_codec.integrations.report",
    "handoff_codec.integrations.openai_agents",
    "handoff_codec.integrations.openai_agents_internals",
    "handoff_codec.integrations.langgraph",
    "handoff_codec.integrations.google_adk",
    "handoff_codec.integrations.google_adk_internals",
    "handoff_codec.integrations.agent_framework",
    "handoff_codec.integrations.pydantic_ai",
    "handoff_codec.integrations.a2a",
    "handoff_codec.cli",
)

NO_TEXT = "*No docstring.*"


def public_names(module: str) -> list[str]:
    """The ``__all__`` of ``module``, in its order."""
    return list(_import(module).__all__)


def _import(name: str) -> ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(name)


@cache
def _attribute_docs() -> dict[str, list[tuple[str, str]]]:
    """Every ``NAME = ...`` followed by a string literal in the package: name -> (module, text)."""
    found: dict[str, list[tuple[str, str]]] = {}
    root = _import(PACKAGE)
    modules = [PACKAGE] + [info.name for info in
                           pkgutil.walk_packages(root.__path__, prefix=f"{PACKAGE}.")]
    for module in modules:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        source = Path(spec.origin).read_text(encoding="utf-8")
        lines = source.splitlines()
        body = ast.parse(source).body
        for statement, after in zip(body, [*body[1:], None], strict=True):
            text = _text_of(statement, after, lines)
            if text:
                for target in _assigned(statement):
                    found.setdefault(target, []).append((module, text))
    return found


def _assigned(statement: ast.stmt) -> list[str]:
    """The names a top-level assignment binds (``A = ...``, ``A: T = ...``, ``A, B = ...``)."""
    if isinstance(statement, ast.AnnAssign):
        targets: list[ast.expr] = [statement.target]
    elif isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    else:
        return []
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, ast.Tuple) else [target]
        names += [element.id for element in elements if isinstance(element, ast.Name)]
    return names


def _text_of(statement: ast.stmt, after: ast.stmt | None, lines: list[str]) -> str:
    """The string literal after an assignment, or the ``#:`` comment lines above it."""
    if (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)):
        return inspect.cleandoc(after.value.value)
    comment: list[str] = []
    row = statement.lineno - 2
    while row >= 0 and lines[row].startswith("#:"):
        comment.insert(0, lines[row][2:].strip())
        row -= 1
    return " ".join(comment)


def docstring(module: str, name: str) -> str:
    """The text of ``module.name``, or ``""`` when it has none."""
    value = getattr(_import(module), name)
    for defining, text in _attribute_docs().get(name, []):
        if getattr(_import(defining), name, None) is value:
            return text
    own: Any = None
    if inspect.isclass(value):
        own = value.__dict__.get("__doc__")
    elif inspect.ismodule(value) or inspect.isroutine(value):
        own = value.__doc__
    return inspect.cleandoc(own) if isinstance(own, str) and own.strip() else ""


class _Written:
    """An annotation as it is written in the source, shown without quotes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _kind(value: Any) -> str:
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "exception" if issubclass(value, BaseException) else "class"
    if inspect.isroutine(value):
        return "function"
    return "value"


def _signature(name: str, value: Any) -> str:
    if not (inspect.isroutine(value) or inspect.isclass(value)):
        return ""
    try:
        found = inspect.signature(value)
    except (TypeError, ValueError):
        return ""
    # Annotations are strings (``from __future__ import annotations``): shown unquoted.
    found = found.replace(
        parameters=[parameter.replace(annotation=_Written(parameter.annotation))
                    if isinstance(parameter.annotation, str) else parameter
                    for parameter in found.parameters.values()],
        return_annotation=(_Written(found.return_annotation)
                           if isinstance(found.return_annotation, str)
                           else found.return_annotation))
    signature = str(found)
    if " at 0x" in signature:  # a default whose repr holds an address changes every run
        return ""
    return f"{name}{signature}"


def render() -> str:
    """The whole of ``docs/api.md``."""
    lines = [
        "# API",
        "",
        "Every public name of handoff-codec: the `__all__` of each public module,",
        "with its docstring. Names that start with `_`, and modules not listed here,",
        "are not API. This file is generated from the package by",
        "`python tools/api_doc.py`; edit the docstrings, not this file.",
        "",
        "Modules:",
        "",
    ]
    lines += [f"- [`{module}`](#{module.replace('.', '')})" for module in PUBLIC_MODULES]
    documented: dict[int, str] = {}
    for module in PUBLIC_MODULES:
        mod = _import(module)
        summary = inspect.cleandoc(mod.__doc__ or "").split("\n\n")[0]
        lines += ["", f"## {module}", "", summary.replace("\n", " ")]
        for name in public_names(module):
            value = getattr(mod, name)
            lines += ["", f"### `{module}.{name}`", ""]
            first = documented.get(id(value))
            if first is not None and _kind(value) != "value":
                lines.append(f"{_kind(value).capitalize()}: the same object as [`{first}`]"
                             f"(#{first.replace('.', '').lower()}).")
                continue
            documented.setdefault(id(value), f"{module}.{name}")
            signature = _signature(name, value)
            lines.append(f"*{_kind(value)}*")
            if signature:
                lines += ["", "```python", signature, "```"]
            lines += ["", docstring(module, name) or NO_TEXT]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if docs/api.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run python tools/api_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
