"""The format's words, from the grammar: roles, item types, content part types."""

from __future__ import annotations

import re
from types import MappingProxyType

from ..grammar import alternatives

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CONTENT_PART_TYPES", "ITEM_TYPES", "KNOWN_ROLES", "SHARED_ROLES", "WORD", "message"]

# grammar/summary.lark's KNOWN_ROLE: the roles every reader knows.
KNOWN_ROLES = frozenset(alternatives("KNOWN_ROLE"))
# Each known role as one str object, for every item to share (``.get(role, role)``)
# rather than hold a copy that the regex made: 50 bytes an item.
SHARED_ROLES = MappingProxyType({role: role for role in KNOWN_ROLES})
# grammar/summary.lark's ITEM_TYPE (legacy.lark imports it) and legacy.lark's CONTENT_PART_TYPE.
ITEM_TYPES = frozenset(alternatives("ITEM_TYPE", "legacy"))
CONTENT_PART_TYPES = frozenset(alternatives("CONTENT_PART_TYPE", "legacy"))
# A word that may be an item's type: what a `type: {json}` record starts with.
WORD = re.compile("[A-Za-z_][A-Za-z0-9_]*")


def message(role: str, content: Any, name: str | None = None) -> dict[str, Any]:
    """A message item, as every reader builds it: a known role as the one shared str, and a
    ``name`` key only when there is a name (None: none)."""
    role = SHARED_ROLES.get(role, role)
    if name is None:
        return {"role": role, "content": content}
    return {"role": role, "name": name, "content": content}
