"""Every relative link in README.md, CONTRIBUTING.md and docs/ reaches a file, and a heading
of it where the link names one; docs/performance.md stays within 15,000 bytes (the
frameworks' tables are in docs/frameworks.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^ *```.*?^ *```", re.M | re.S)
HEADING = re.compile(r"^#+ (.*)$", re.M)


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered from 1."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(f"{slug}-{count}" if count else slug)
    return anchors


def _links() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for target in LINK.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
            if not re.match(r"[a-z]+:", target):
                found.append((str(path.relative_to(ROOT)), target))
    return found


@pytest.mark.parametrize(("doc", "target"), _links())
def test_a_relative_link_in_the_docs_reaches_its_file_and_heading(doc: str, target: str) -> None:
    source = ROOT / doc
    path, _, fragment = target.partition("#")
    linked = (source.parent / path) if path else source
    assert linked.exists(), f"{doc} links to {target}: no such file"
    if fragment and linked.suffix == ".md":
        assert fragment in _anchors(linked), f"{doc} links to {target}: no such heading"


def test_the_performance_page_stays_within_15_kb() -> None:
    assert (ROOT / "docs" / "performance.md").stat().st_size <= 15_000
