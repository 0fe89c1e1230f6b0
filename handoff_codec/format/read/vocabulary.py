"""The format's words, from the grammar: roles, item types, content part types."""

from __future__ import annotations

import re
from types import MappingProxyType

from ..grammar import alternatives

__all__ = ["CONTENT_PART_TYPES", "ITEM_TYPES", "KNOWN_ROLES", "SHARED_ROLES", "WORD"]

# grammar/summary.lark's KNOWN_ROLE: the roles every reader knows.
KNOWN_ROLES = frozenset(alternatives("KNOWN_ROLE"))
# Each known role as one str object, for every item to share (``.get(role, role)``)
# rather than hold a copy that the regex made: 50 bytes an item.
SHARED_ROLES = MappingProxyType({role: role for role in KNOWN_ROLES})
# grammar/legacy.lark's ITEM_TYPE and CONTENT_PART_TYPE.
ITEM_TYPES = frozenset(alternatives("ITEM_TYPE", "legacy"))
CONTENT_PART_TYPES = frozenset(alternatives("CONTENT_PART_TYPE", "legacy"))
# A word that may be an item's type: what a `type: {json}` record starts with.
WORD = re.compile("[A-Za-z_][A-Za-z0-9_]*")
